package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/yaml"
)

// The OpenAPI documents are served by the edge rather than by huma, so that
// they say what the wire does where huma's generator cannot: an object
// member that is null when absent (huma refuses nullable object
// references) is declared nullable, in the 3.1 form and in the 3.0 one.

// documentFormats are the four renderings, by the path suffix they are served at.
var documentFormats = []struct {
	suffix, version, contentType string
	yaml                         bool
}{
	{"/openapi.json", "3.1", "application/openapi+json", false},
	{"/openapi-3.0.json", "3.0", "application/openapi+json", false},
	{"/openapi.yaml", "3.1", "application/openapi+yaml", true},
	{"/openapi-3.0.yaml", "3.0", "application/openapi+yaml", true},
}

// serveDocuments mounts the documents under prefix, without a key. Each is
// rendered once, on first request (every operation is registered by then).
func serveDocuments(mux *http.ServeMux, prefix string, api huma.API) {
	for _, f := range documentFormats {
		var once sync.Once
		var body []byte
		var err error
		mux.HandleFunc("GET "+prefix+f.suffix, func(w http.ResponseWriter, r *http.Request) {
			once.Do(func() { body, err = Document(api, f.version, f.yaml) })
			if err != nil {
				WriteError(w, r, internal(fmt.Errorf("render %s: %w", f.suffix, err)))
				return
			}
			w.Header().Set("Content-Type", f.contentType)
			_, _ = w.Write(body)
		})
	}
}

// Document renders api's OpenAPI document: version "3.1" (what huma
// describes) or "3.0" (huma's downgrade), as JSON or YAML, with the
// nullable object members declared.
func Document(api huma.API, version string, asYAML bool) ([]byte, error) {
	oapi := api.OpenAPI()
	var raw []byte
	var err error
	switch version {
	case "3.1":
		raw, err = json.Marshal(oapi)
	case "3.0":
		raw, err = oapi.Downgrade()
	default:
		return nil, fmt.Errorf("unknown OpenAPI version %q (3.1 or 3.0)", version)
	}
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	declareNullObjects(doc, oapi.Components.Schemas, version)
	out, err := json.Marshal(doc)
	if err != nil || !asYAML {
		return out, err
	}
	var buf bytes.Buffer
	if err := yaml.Convert(&buf, bytes.NewReader(out)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// declareNullObjects finds, in every component schema made from a Go
// struct, the members that hold a pointer to a struct and are not
// omitempty — encoding/json writes them as null when nil — and declares
// them nullable: anyOf [ref, null] in 3.1, allOf [ref] with nullable in 3.0.
func declareNullObjects(doc map[string]any, reg huma.Registry, version string) {
	schemas, _ := dig(doc, "components", "schemas").(map[string]any)
	for name := range reg.Map() {
		t := reg.TypeFromRef("#/components/schemas/" + name)
		props, _ := dig(schemas, name, "properties").(map[string]any)
		if t == nil || props == nil {
			continue
		}
		for _, member := range nullObjectMembers(t) {
			if p, ok := props[member].(map[string]any); ok {
				props[member] = nullable(p, version)
			}
		}
	}
}

// nullable wraps a property that references a schema so it also admits null.
func nullable(p map[string]any, version string) map[string]any {
	ref, ok := p["$ref"].(string)
	if !ok {
		return p
	}
	out := map[string]any{}
	for k, v := range p {
		if k != "$ref" {
			out[k] = v
		}
	}
	if version == "3.0" {
		out["allOf"] = []any{map[string]any{"$ref": ref}}
		out["nullable"] = true
		return out
	}
	out["anyOf"] = []any{map[string]any{"$ref": ref}, map[string]any{"type": "null"}}
	return out
}

// nullObjectMembers lists the JSON names of t's members (embedded structs'
// included) that encoding/json writes as null: struct pointers without
// omitempty.
func nullObjectMembers(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if f.Anonymous && name == "" {
			out = append(out, nullObjectMembers(f.Type)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct && !strings.Contains(","+opts+",", ",omitempty,") &&
			ft.Elem().PkgPath() != "time" {
			out = append(out, name)
		}
	}
	return out
}

func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
