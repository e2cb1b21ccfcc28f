package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/platform/fault"
)

// Guard is the one place where the edge refuses, for every operation of an
// API, input that the service cannot store or that the document does not
// allow — so no field, handler or query has to think about it:
//
//   - a path holding NUL or invalid UTF-8: 404 not_found (no such id exists);
//   - a declared query or header parameter holding NUL or invalid UTF-8, or
//     an empty value for one that is not free text (an enum, a number, a
//     date): 400 invalid_request (an empty free-text filter is left out);
//   - a JSON body that is not UTF-8, or holds an unpaired surrogate escape
//     (\uD800 to \uDFFF): 400 invalid_json (Go would store U+FFFD instead);
//   - a string in a JSON body (a key or a value) holding NUL: 400
//     invalid_request (Postgres text cannot hold it);
//   - null for a body field the document does not declare nullable: 400
//     invalid_request (the API's one rule for null: docs/design/api-conventions.md).
//
// It is a huma middleware registered after the API's authentication, so
// the spec's order of checks holds: route, body size and type, key, gates,
// limits, then validation (400). It runs before the handler reads anything.
func Guard(api huma.API) func(huma.Context, func(huma.Context)) {
	reg := api.OpenAPI().Components.Schemas
	return func(ctx huma.Context, next func(huma.Context)) {
		op := ctx.Operation()
		e := checkParams(ctx, op)
		var body []byte
		if e == nil && op != nil && op.RequestBody != nil && op.RequestBody.Content["application/json"] != nil {
			var err error
			if body, err = io.ReadAll(ctx.BodyReader()); err != nil {
				e = NewError(http.StatusBadRequest, CodeBadRequest, "could not read request body")
			} else {
				e = checkBody(reg, op.RequestBody.Content["application/json"].Schema, body)
			}
		}
		if e != nil {
			_ = huma.WriteErr(api, ctx, e.GetStatus(), "", e)
			return
		}
		if body != nil {
			ctx = bodyContext{humaContext: ctx, body: bytes.NewReader(body)}
		}
		next(ctx)
	}
}

// humaContext lets bodyContext embed huma.Context without its field name
// hiding the interface's Context method.
type humaContext = huma.Context

// bodyContext hands the handler the body the guard has read.
type bodyContext struct {
	humaContext
	body io.Reader
}

func (c bodyContext) BodyReader() io.Reader { return c.body }

// storable reports whether Postgres text can hold s: UTF-8 without NUL.
func storable(s string) bool {
	return strings.IndexByte(s, 0) < 0 && utf8.ValidString(s)
}

func checkParams(ctx huma.Context, op *huma.Operation) *Error {
	u := ctx.URL()
	if !storable(u.Path) {
		return NewError(http.StatusNotFound, fault.CodeNotFound, "no such item")
	}
	if op == nil {
		return nil
	}
	var query map[string][]string
	for _, p := range op.Parameters {
		switch p.In {
		case "query":
			if u.RawQuery == "" {
				continue
			}
			if query == nil {
				query = u.Query()
			}
			vs, present := query[p.Name]
			for _, v := range vs {
				if !storable(v) {
					return fault400("query parameter " + p.Name + " holds a NUL character or invalid UTF-8")
				}
				if v == "" && present && p.Schema != nil && (len(p.Schema.Enum) > 0 || p.Schema.Type != huma.TypeString) {
					return fault400("query parameter " + p.Name + " is empty: give a value or leave it out")
				}
			}
		case "header":
			if v := ctx.Header(p.Name); !storable(v) {
				return fault400("header " + p.Name + " holds a NUL character or invalid UTF-8")
			}
		}
	}
	return nil
}

func fault400(msg string) *Error {
	return NewError(http.StatusBadRequest, fault.CodeInvalidRequest, msg)
}

// checkBody refuses a JSON body that is not UTF-8 or holds an unpaired
// surrogate (invalid_json), a NUL in any string, or a null the schema does
// not allow (invalid_request). A body that is not JSON at all is left to
// huma, which answers invalid_json.
func checkBody(reg huma.Registry, schema *huma.Schema, body []byte) *Error {
	if len(body) == 0 {
		return nil
	}
	if !utf8.Valid(body) {
		return NewError(http.StatusBadRequest, CodeInvalidJSON, "request body is not valid UTF-8")
	}
	s := scanJSON(body)
	if s.loneSurrogate {
		return NewError(http.StatusBadRequest, CodeInvalidJSON, `request body holds an unpaired surrogate escape (\uD800 to \uDFFF), which is not text`)
	}
	if s.nul {
		return fault400(`request body holds a NUL character (\u0000), which text fields cannot store`)
	}
	if !s.null || schema == nil {
		return nil
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		return nil // huma answers invalid_json
	}
	if where := nullWhereRefused(reg, schema, v, "body"); where != "" {
		return fault400(where + ": null is not allowed; leave the field out instead")
	}
	return nil
}

// jsonScan is what one pass over a JSON text found.
type jsonScan struct {
	nul           bool // \u0000 in a string
	loneSurrogate bool // a \uD800-\uDFFF escape not in a high-low pair
	null          bool // a null literal
}

// scanJSON walks the text's strings and escapes without building values.
// On malformed JSON it may stop early; huma reports the error.
func scanJSON(b []byte) jsonScan {
	var s jsonScan
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !in {
			switch c {
			case '"':
				in = true
			case 'n': // outside strings only null has an n
				s.null = true
			}
			continue
		}
		switch c {
		case '"':
			in = false
		case '\\':
			if i+1 >= len(b) {
				return s
			}
			i++
			if b[i] != 'u' {
				continue
			}
			u, ok := hex4(b, i+1)
			if !ok {
				return s
			}
			i += 4
			switch {
			case u == 0:
				s.nul = true
			case u >= 0xD800 && u <= 0xDBFF:
				if i+6 < len(b) && b[i+1] == '\\' && b[i+2] == 'u' {
					if lo, ok := hex4(b, i+3); ok && lo >= 0xDC00 && lo <= 0xDFFF {
						i += 6
						continue
					}
				}
				s.loneSurrogate = true
			case u >= 0xDC00 && u <= 0xDFFF:
				s.loneSurrogate = true
			}
		}
	}
	return s
}

func hex4(b []byte, at int) (uint64, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	u, err := strconv.ParseUint(string(b[at:at+4]), 16, 32)
	return u, err == nil
}

// nullWhereRefused returns the location of the first null in v that the
// schema does not declare nullable ("" if none). Members the schema does
// not know are left to huma (400 unknown_field).
func nullWhereRefused(reg huma.Registry, s *huma.Schema, v any, at string) string {
	s = resolve(reg, s)
	if s == nil {
		return ""
	}
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			ps := s.Properties[k]
			if ps == nil {
				ps, _ = s.AdditionalProperties.(*huma.Schema)
			}
			if ps == nil {
				continue
			}
			if where := nullCheck(reg, ps, val, at+"."+k); where != "" {
				return where
			}
		}
	case []any:
		if s.Items == nil {
			return ""
		}
		for i, val := range x {
			if where := nullCheck(reg, s.Items, val, at+"["+strconv.Itoa(i)+"]"); where != "" {
				return where
			}
		}
	}
	return ""
}

func nullCheck(reg huma.Registry, s *huma.Schema, v any, at string) string {
	if v == nil {
		if !allowsNull(reg, s) {
			return at
		}
		return ""
	}
	return nullWhereRefused(reg, s, v, at)
}

func resolve(reg huma.Registry, s *huma.Schema) *huma.Schema {
	if s != nil && s.Ref != "" {
		return reg.SchemaFromRef(s.Ref)
	}
	return s
}

func allowsNull(reg huma.Registry, s *huma.Schema) bool {
	if s.Nullable || s.Type == "null" {
		return true
	}
	for _, alt := range append(append([]*huma.Schema{}, s.AnyOf...), s.OneOf...) {
		if allowsNull(reg, alt) {
			return true
		}
	}
	if r := resolve(reg, s); r != s && r != nil {
		return allowsNull(reg, r)
	}
	return false
}
