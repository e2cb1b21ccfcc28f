package httpapi

import (
	"encoding/json"

	"github.com/danielgtaylor/huma/v2"
)

// clearable is a change's optional, nullable string: left out (Set false:
// unchanged) is told apart from null (Set, Value "": cleared), which
// *string cannot do, as both decode to nil.
type clearable struct {
	Set   bool
	Value string
}

// UnmarshalJSON implements json.Unmarshaler: called for the key when it is
// in the body, null included.
func (c *clearable) UnmarshalJSON(b []byte) error {
	c.Set, c.Value = true, ""
	if string(b) == "null" {
		return nil
	}
	return json.Unmarshal(b, &c.Value)
}

// Schema implements huma.SchemaProvider: a string or null.
func (clearable) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: huma.TypeString, Nullable: true}
}

// change is the service's form: nil when left out, "" when null.
func (c clearable) change() *string {
	if !c.Set {
		return nil
	}
	v := c.Value
	return &v
}

// optionalString is an add's optional, nullable string: "" when left out or null.
func optionalString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
