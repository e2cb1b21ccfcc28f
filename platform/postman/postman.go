// Package postman converts the service's OpenAPI description into a Postman v2.1 collection.
package postman

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// SchemaURL is the Postman Collection v2.1 schema identifier written to info.schema.
const SchemaURL = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"

const (
	baseURLVar = "base_url"
	apiKeyVar  = "api_key"

	// defaultFolder holds operations that carry no tag.
	defaultFolder = "default"

	// maxExampleDepth bounds how deep synthesized request-body examples nest,
	// which also stops recursive schemas.
	maxExampleDepth = 6
	// maxRefHops bounds how many $ref indirections are followed in a row.
	maxRefHops = 32
)

// methodOrder is the order of HTTP methods inside a folder for a same path.
var methodOrder = []string{"get", "post", "put", "patch", "delete", "head", "options", "trace"}

// Options tunes the generated collection.
type Options struct {
	Name    string // collection name; defaults to the OpenAPI info.title
	BaseURL string // initial value of the base_url variable, e.g. "http://localhost:8080/api/v1"
}

// FromOpenAPI builds a Postman v2.1 collection from an OpenAPI 3.x JSON document.
func FromOpenAPI(openapiJSON []byte, opts Options) ([]byte, error) {
	doc, err := decodeDocument(openapiJSON)
	if err != nil {
		return nil, err
	}
	c := &converter{doc: doc}
	return c.convert(opts)
}

// ---------------------------------------------------------------------------
// Output model (Postman Collection v2.1). Field order is the JSON order.

type collection struct {
	Info     info       `json:"info"`
	Item     []folder   `json:"item"`
	Auth     *auth      `json:"auth,omitempty"`
	Variable []variable `json:"variable"`
}

type info struct {
	PostmanID   string `json:"_postman_id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Schema      string `json:"schema"`
}

type folder struct {
	Name        string        `json:"name"`
	Description string        `json:"description,omitempty"`
	Item        []requestItem `json:"item"`
}

type requestItem struct {
	Name     string  `json:"name"`
	Request  request `json:"request"`
	Response []any   `json:"response"`
}

type request struct {
	Method      string     `json:"method"`
	Header      []header   `json:"header"`
	Auth        *auth      `json:"auth,omitempty"`
	Body        *body      `json:"body,omitempty"`
	URL         requestURL `json:"url"`
	Description string     `json:"description,omitempty"`
}

type header struct {
	Key         string `json:"key"`
	Value       string `json:"value"`
	Type        string `json:"type,omitempty"`
	Description string `json:"description,omitempty"`
	Disabled    bool   `json:"disabled,omitempty"`
}

type body struct {
	Mode    string      `json:"mode"`
	Raw     string      `json:"raw"`
	Options bodyOptions `json:"options"`
}

type bodyOptions struct {
	Raw bodyOptionsRaw `json:"raw"`
}

type bodyOptionsRaw struct {
	Language string `json:"language"`
}

type requestURL struct {
	Raw      string       `json:"raw"`
	Host     []string     `json:"host"`
	Path     []string     `json:"path"`
	Query    []queryParam `json:"query,omitempty"`
	Variable []variable   `json:"variable,omitempty"`
}

type queryParam struct {
	Key         string `json:"key"`
	Value       string `json:"value"`
	Description string `json:"description,omitempty"`
	Disabled    bool   `json:"disabled,omitempty"`
}

type variable struct {
	Key         string `json:"key"`
	Value       string `json:"value"`
	Type        string `json:"type,omitempty"`
	Description string `json:"description,omitempty"`
}

type auth struct {
	Type   string      `json:"type"`
	Bearer []authParam `json:"bearer,omitempty"`
}

type authParam struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Type  string `json:"type"`
}

// ---------------------------------------------------------------------------
// Conversion.

type converter struct {
	doc map[string]any
}

// operation is one OpenAPI operation flattened for sorting and rendering.
type operation struct {
	path     string // path relative to the server prefix, e.g. "/team/{id}"
	method   string // lower-case OpenAPI method key
	folder   string
	pathItem map[string]any
	op       map[string]any
}

func decodeDocument(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // keep numeric examples exactly as written
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("postman: decode OpenAPI document: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("postman: decode OpenAPI document: trailing data after JSON value")
	}
	doc, ok := raw.(map[string]any)
	if !ok {
		return nil, errors.New("postman: OpenAPI document is not a JSON object")
	}
	version, _ := doc["openapi"].(string)
	if !strings.HasPrefix(version, "3.") {
		return nil, fmt.Errorf("postman: unsupported OpenAPI version %q (want 3.x)", version)
	}
	if _, ok := doc["paths"].(map[string]any); !ok {
		return nil, errors.New("postman: OpenAPI document has no paths object")
	}
	return doc, nil
}

func (c *converter) convert(opts Options) ([]byte, error) {
	docInfo := asMap(c.doc["info"])
	title := asString(docInfo["title"])
	name := opts.Name
	if name == "" {
		name = title
	}
	if name == "" {
		name = "API"
	}
	idSeed := title
	if idSeed == "" {
		idSeed = name
	}

	out := collection{
		Info: info{
			PostmanID:   deterministicUUID(idSeed),
			Name:        name,
			Description: asString(docInfo["description"]),
			Schema:      SchemaURL,
		},
		Item: []folder{},
		Auth: bearerAuth(),
		Variable: []variable{
			{Key: baseURLVar, Value: opts.BaseURL, Type: "string"},
			{Key: apiKeyVar, Value: "", Type: "string"},
		},
	}

	ops := c.operations()
	folderOps := map[string][]operation{}
	for _, op := range ops {
		folderOps[op.folder] = append(folderOps[op.folder], op)
	}

	tagDescriptions := map[string]string{}
	for _, t := range asSlice(c.doc["tags"]) {
		tm := asMap(t)
		if n := asString(tm["name"]); n != "" {
			if _, seen := tagDescriptions[n]; !seen {
				tagDescriptions[n] = asString(tm["description"])
			}
		}
	}

	for _, name := range c.folderOrder(folderOps) {
		list := folderOps[name]
		sort.SliceStable(list, func(i, j int) bool {
			if list[i].path != list[j].path {
				return list[i].path < list[j].path
			}
			return methodRank(list[i].method) < methodRank(list[j].method)
		})
		f := folder{Name: name, Description: tagDescriptions[name], Item: make([]requestItem, 0, len(list))}
		for _, op := range list {
			item, err := c.requestItem(op)
			if err != nil {
				return nil, err
			}
			f.Item = append(f.Item, item)
		}
		out.Item = append(out.Item, f)
	}

	return marshal(out, "  ")
}

// operations lists every operation in the document with its path already
// made relative to the server prefix.
func (c *converter) operations() []operation {
	paths := asMap(c.doc["paths"])
	keys := sortedKeys(paths)
	prefix := c.commonServerPrefix(keys)

	var ops []operation
	for _, p := range keys {
		item := c.deref(asMap(paths[p]))
		if item == nil {
			continue
		}
		rel := strings.TrimPrefix(p, prefix)
		if rel == "" || rel[0] != '/' {
			rel = "/" + rel
		}
		for _, m := range methodOrder {
			op, ok := item[m].(map[string]any)
			if !ok {
				continue
			}
			f := defaultFolder
			if tags := asSlice(op["tags"]); len(tags) > 0 {
				if t := asString(tags[0]); t != "" {
					f = t
				}
			}
			ops = append(ops, operation{path: rel, method: m, folder: f, pathItem: item, op: op})
		}
	}
	return ops
}

// commonServerPrefix returns the path part of servers[0].url when every
// document path starts with it, so that it can be stripped (the base_url
// variable already carries it). Otherwise it returns "".
func (c *converter) commonServerPrefix(paths []string) string {
	servers := asSlice(c.doc["servers"])
	if len(servers) == 0 {
		return ""
	}
	prefix := strings.TrimRight(urlPath(asString(asMap(servers[0])["url"])), "/")
	if prefix == "" || len(paths) == 0 {
		return ""
	}
	for _, p := range paths {
		if p != prefix && !strings.HasPrefix(p, prefix+"/") {
			return ""
		}
	}
	return prefix
}

// urlPath extracts the path part of a (possibly relative, possibly templated)
// server URL such as "https://{host}/api/v1" or "/api/v1".
func urlPath(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	if i := strings.Index(u, "://"); i >= 0 {
		rest := u[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			return rest[j:]
		}
		return ""
	} else if strings.HasPrefix(u, "//") {
		rest := u[2:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			return rest[j:]
		}
		return ""
	}
	return u
}

func (c *converter) folderOrder(folders map[string][]operation) []string {
	order := make([]string, 0, len(folders))
	listed := map[string]bool{}
	for _, t := range asSlice(c.doc["tags"]) {
		n := asString(asMap(t)["name"])
		if _, ok := folders[n]; ok && !listed[n] {
			listed[n] = true
			order = append(order, n)
		}
	}
	var rest []string
	for n := range folders {
		if !listed[n] {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(order, rest...)
}

func (c *converter) requestItem(op operation) (requestItem, error) {
	method := strings.ToUpper(op.method)
	name := asString(op.op["summary"])
	if name == "" {
		name = asString(op.op["operationId"])
	}
	if name == "" {
		name = method + " " + op.path
	}

	req := request{
		Method:      method,
		Header:      []header{},
		Description: asString(op.op["description"]),
		URL:         buildURL(op.path),
	}

	for _, p := range c.parameters(op) {
		pName := asString(p["name"])
		desc := asString(p["description"])
		required, _ := p["required"].(bool)
		switch asString(p["in"]) {
		case "path":
			req.URL.Variable = append(req.URL.Variable, variable{Key: pName, Value: "", Description: desc})
		case "query":
			req.URL.Query = append(req.URL.Query, queryParam{Key: pName, Value: "", Description: desc, Disabled: !required})
		case "header":
			req.Header = append(req.Header, header{Key: pName, Value: "", Type: "text", Description: desc, Disabled: !required})
		}
	}

	if c.publicOperation(op.op) {
		req.Auth = &auth{Type: "noauth"}
	}

	if rb := c.deref(asMap(op.op["requestBody"])); rb != nil {
		if media, ok := asMap(rb["content"])["application/json"].(map[string]any); ok {
			raw, err := c.bodyExample(media)
			if err != nil {
				return requestItem{}, fmt.Errorf("postman: %s %s: request body example: %w", method, op.path, err)
			}
			req.Header = append(req.Header, header{Key: "Content-Type", Value: "application/json", Type: "text"})
			req.Body = &body{Mode: "raw", Raw: raw, Options: bodyOptions{Raw: bodyOptionsRaw{Language: "json"}}}
		}
	}

	return requestItem{Name: name, Request: req, Response: []any{}}, nil
}

// publicOperation reports whether the operation's effective security
// requirement is explicitly empty (`security: []`), either on the operation
// or inherited from the document.
func (c *converter) publicOperation(op map[string]any) bool {
	sec, ok := op["security"]
	if !ok {
		sec, ok = c.doc["security"]
	}
	if !ok {
		return false
	}
	list, isList := sec.([]any)
	return isList && len(list) == 0
}

// parameters merges path-item and operation parameters (the latter win on
// the same name+location), resolving $refs, in declaration order.
func (c *converter) parameters(op operation) []map[string]any {
	var out []map[string]any
	index := map[string]int{}
	add := func(list []any) {
		for _, raw := range list {
			p := c.deref(asMap(raw))
			if p == nil || asString(p["name"]) == "" {
				continue
			}
			k := asString(p["in"]) + "\x00" + asString(p["name"])
			if i, ok := index[k]; ok {
				out[i] = p
				continue
			}
			index[k] = len(out)
			out = append(out, p)
		}
	}
	add(asSlice(op.pathItem["parameters"]))
	add(asSlice(op.op["parameters"]))
	return out
}

func buildURL(path string) requestURL {
	segments := []string{}
	for _, s := range strings.Split(path, "/") {
		if s == "" {
			continue
		}
		segments = append(segments, templateToColon(s))
	}
	return requestURL{
		Raw:  "{{" + baseURLVar + "}}/" + strings.Join(segments, "/"),
		Host: []string{"{{" + baseURLVar + "}}"},
		Path: segments,
	}
}

// templateToColon rewrites OpenAPI path templates ("{id}") to Postman path
// variables (":id").
func templateToColon(segment string) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(segment, '{')
		if open < 0 {
			break
		}
		closing := strings.IndexByte(segment[open:], '}')
		if closing < 0 {
			break
		}
		b.WriteString(segment[:open])
		b.WriteByte(':')
		b.WriteString(segment[open+1 : open+closing])
		segment = segment[open+closing+1:]
	}
	b.WriteString(segment)
	return b.String()
}

// ---------------------------------------------------------------------------
// Request body examples.

func (c *converter) bodyExample(media map[string]any) (string, error) {
	var example any
	switch {
	case media["example"] != nil:
		example = media["example"]
	case len(asMap(media["examples"])) > 0:
		examples := asMap(media["examples"])
		ex := c.deref(asMap(examples[sortedKeys(examples)[0]]))
		example = ex["value"]
	default:
		example = c.schemaExample(asMap(media["schema"]), 0)
	}
	if example == nil {
		example = map[string]any{}
	}
	b, err := marshal(example, "  ")
	if err != nil {
		return "", err
	}
	return string(bytes.TrimRight(b, "\n")), nil
}

// schemaExample synthesizes an example value for a JSON schema.
func (c *converter) schemaExample(schema map[string]any, depth int) any {
	schema = c.deref(schema)
	if schema == nil {
		return nil
	}

	if ex := asSlice(schema["examples"]); len(ex) > 0 {
		return ex[0]
	}
	for _, k := range []string{"example", "const", "default"} {
		if v, ok := schema[k]; ok && v != nil {
			return v
		}
	}
	if enum := asSlice(schema["enum"]); len(enum) > 0 {
		return enum[0]
	}

	if all := asSlice(schema["allOf"]); len(all) > 0 {
		if depth >= maxExampleDepth {
			return nil
		}
		merged := map[string]any{}
		var last any
		for _, sub := range all {
			v := c.schemaExample(asMap(sub), depth+1)
			if m, ok := v.(map[string]any); ok {
				for k, val := range m {
					merged[k] = val
				}
			} else if v != nil {
				last = v
			}
		}
		if len(merged) == 0 && last != nil {
			return last
		}
		if props := c.objectExample(schema, depth); props != nil {
			for k, val := range props {
				merged[k] = val
			}
		}
		return merged
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if alts := asSlice(schema[k]); len(alts) > 0 {
			if depth >= maxExampleDepth {
				return nil
			}
			for _, alt := range alts {
				if t, _ := schemaType(c.deref(asMap(alt))); t != "null" {
					return c.schemaExample(asMap(alt), depth+1)
				}
			}
			return nil
		}
	}

	t, _ := schemaType(schema)
	switch t {
	case "string":
		return stringExample(asString(schema["format"]))
	case "integer", "number":
		return 0
	case "boolean":
		return false
	case "null":
		return nil
	case "array":
		if depth >= maxExampleDepth {
			return []any{}
		}
		item := c.schemaExample(asMap(schema["items"]), depth+1)
		if item == nil {
			return []any{}
		}
		return []any{item}
	case "object", "":
		if t == "" && schema["properties"] == nil {
			return nil
		}
		if m := c.objectExample(schema, depth); m != nil {
			return m
		}
		return map[string]any{}
	}
	return nil
}

// objectExample builds an example from an object schema's properties,
// skipping read-only ones (such as huma's "$schema" link).
func (c *converter) objectExample(schema map[string]any, depth int) map[string]any {
	props := asMap(schema["properties"])
	if props == nil {
		return nil
	}
	out := map[string]any{}
	if depth >= maxExampleDepth {
		return out
	}
	for _, k := range sortedKeys(props) {
		prop := c.deref(asMap(props[k]))
		if prop == nil {
			continue
		}
		if ro, _ := prop["readOnly"].(bool); ro {
			continue
		}
		out[k] = c.schemaExample(prop, depth+1)
	}
	return out
}

// schemaType returns the schema's primary type; for OpenAPI 3.1 type arrays
// such as ["string","null"] the first non-null entry wins. It also reports
// whether the schema is nullable.
func schemaType(schema map[string]any) (string, bool) {
	nullable, _ := schema["nullable"].(bool)
	switch t := schema["type"].(type) {
	case string:
		return t, nullable
	case []any:
		first := ""
		for _, v := range t {
			s := asString(v)
			if s == "null" {
				nullable = true
				continue
			}
			if first == "" {
				first = s
			}
		}
		if first == "" && nullable {
			return "null", true
		}
		return first, nullable
	}
	if schema["properties"] != nil {
		return "object", nullable
	}
	if schema["items"] != nil {
		return "array", nullable
	}
	return "", nullable
}

func stringExample(format string) string {
	switch format {
	case "date-time":
		return "2024-01-01T00:00:00Z"
	case "date":
		return "2024-01-01"
	case "time":
		return "00:00:00Z"
	case "duration":
		return "P1D"
	case "email", "idn-email":
		return "user@example.com"
	case "hostname", "idn-hostname":
		return "example.com"
	case "ipv4":
		return "192.0.2.1"
	case "ipv6":
		return "2001:db8::1"
	case "uri", "url", "iri", "uri-reference", "iri-reference":
		return "https://example.com"
	case "uuid":
		return "00000000-0000-0000-0000-000000000000"
	}
	return ""
}

// ---------------------------------------------------------------------------
// Helpers.

// deref follows local "$ref" pointers ("#/components/...") until a non-ref
// object is reached. Unresolvable or cyclic refs yield nil.
func (c *converter) deref(m map[string]any) map[string]any {
	for range maxRefHops {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		m = c.resolvePointer(ref)
		if m == nil {
			return nil
		}
	}
	return nil
}

func (c *converter) resolvePointer(ref string) map[string]any {
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	var cur any = c.doc
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[tok]
	}
	res, _ := cur.(map[string]any)
	return res
}

func bearerAuth() *auth {
	return &auth{Type: "bearer", Bearer: []authParam{{Key: "token", Value: "{{" + apiKeyVar + "}}", Type: "string"}}}
}

// deterministicUUID derives a UUID-shaped identifier (version 8, RFC 9562
// variant) from the SHA-256 of seed, so the same title always yields the same id.
func deterministicUUID(seed string) string {
	sum := sha256.Sum256([]byte("teamtext-postman:" + seed))
	b := sum[:16]
	b[6] = (b[6] & 0x0f) | 0x80
	b[8] = (b[8] & 0x3f) | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func marshal(v any, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func methodRank(m string) int {
	for i, v := range methodOrder {
		if v == m {
			return i
		}
	}
	return len(methodOrder)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}
