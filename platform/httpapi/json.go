package httpapi

import (
	"encoding"
	"encoding/json"
	"io"
	"reflect"
	"time"

	"github.com/danielgtaylor/huma/v2"
	segjson "github.com/segmentio/encoding/json"
)

// JSONFormat is huma's JSON format with response bodies encoded by
// segmentio/encoding/json instead of encoding/json. The bytes are
// huma.DefaultJSONFormat's (encoding/json's rules: sorted map keys, its
// float and time formats, null for nil slices and pointers, invalid UTF-8
// as U+FFFD, U+2028/U+2029 escaped, HTML left unescaped, a trailing
// newline) for every kind a response holds: platform/httpapi/json_test.go
// and app/json_test.go compare the two, and JSONDeviation keeps the kinds
// where they differ out of every response type. It compiles an encoder
// per type once instead of walking each value by reflection: a 200-member
// page encodes in about 40% of the CPU, with no allocation. Request bodies
// are still decoded by encoding/json, whose errors huma reports.
var JSONFormat = huma.Format{
	Marshal:   marshalJSON,
	Unmarshal: json.Unmarshal,
}

// marshalJSON writes v as huma's default JSON format does
// (json.NewEncoder(w) with SetEscapeHTML(false), then Encode), byte for
// byte, with segmentio/encoding/json.
func marshalJSON(w io.Writer, v any) error {
	enc := segjson.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// jsonFormats are the API's formats: JSON for application/json and any
// other +json type, as huma's defaults, with JSONFormat's encoder.
func jsonFormats() map[string]huma.Format {
	return map[string]huma.Format{"application/json": JSONFormat, "json": JSONFormat}
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// JSONDeviation says what in a response body's type t JSONFormat could
// encode differently from encoding/json, "" when nothing: segmentio writes
// a time.Duration as a string, a map key whose string type has MarshalText
// through that method, and a MarshalJSON's output as it is (not compacted;
// surrounding space is an error); an interface field's values cannot be
// checked from the type. time.Time and ErrorDetail (whose MarshalJSON is
// json.Marshal's compact output) are known to encode alike.
func JSONDeviation(t reflect.Type) string {
	return jsonDeviation(t, map[reflect.Type]bool{})
}

func jsonDeviation(t reflect.Type, seen map[reflect.Type]bool) string {
	if seen[t] {
		return ""
	}
	seen[t] = true
	switch t {
	case reflect.TypeFor[time.Time](), reflect.TypeFor[ErrorDetail]():
		return ""
	case reflect.TypeFor[time.Duration]():
		return "time.Duration"
	}
	if t.Kind() == reflect.Pointer {
		return jsonDeviation(t.Elem(), seen)
	}
	if t.Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(jsonMarshalerType) ||
		t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
		return t.String() + " has its own MarshalJSON or MarshalText"
	}
	switch t.Kind() {
	case reflect.Interface:
		return t.String() + " is an interface"
	case reflect.Slice, reflect.Array:
		return jsonDeviation(t.Elem(), seen)
	case reflect.Map:
		if d := jsonDeviation(t.Key(), seen); d != "" {
			return "map key: " + d
		}
		return jsonDeviation(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if (!f.IsExported() && !f.Anonymous) || f.Tag.Get("json") == "-" {
				continue
			}
			if d := jsonDeviation(f.Type, seen); d != "" {
				return t.String() + "." + f.Name + ": " + d
			}
		}
	}
	return ""
}
