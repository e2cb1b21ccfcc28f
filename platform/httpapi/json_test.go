package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/httpapi/jsontest"
)

// requireSameJSON encodes v with huma's default JSON format and with
// JSONFormat and requires the same bytes (or both failing).
func requireSameJSON(t *testing.T, v any) []byte {
	t.Helper()
	var want, got bytes.Buffer
	errWant := huma.DefaultJSONFormat.Marshal(&want, v)
	errGot := JSONFormat.Marshal(&got, v)
	require.Equal(t, errWant == nil, errGot == nil, "errors: %v / %v", errWant, errGot)
	require.Equal(t, want.String(), got.String())
	return got.Bytes()
}

type jsonCompact struct{}

// MarshalJSON returns compact JSON with HTML in it, as ErrorDetail's
// json.Marshal does (with its HTML escaped): both leave it as it is.
func (jsonCompact) MarshalJSON() ([]byte, error) {
	return []byte(`{"b":[1,2],"a":"<x>&","c":"\u003c"}`), nil
}

type jsonFailing struct{}

func (jsonFailing) MarshalJSON() ([]byte, error) { return nil, errors.New("no") }

type jsonInner struct {
	X int    `json:"x"`
	Y string `json:"y,omitempty"`
}

type jsonOuter struct {
	jsonInner
	*Pagination
	Name      string         `json:"name"`
	Skip      string         `json:"-"`
	Dash      string         `json:"-,"`
	Quoted    int            `json:"quoted,string"`
	OmitPtr   *string        `json:"omit_ptr,omitempty"`
	NilPtr    *string        `json:"nil_ptr"`
	NilSlice  []string       `json:"nil_slice"`
	Empty     []string       `json:"empty"`
	NilMap    map[string]int `json:"nil_map"`
	Ints      map[int]string `json:"ints"`
	Bytes     []byte         `json:"bytes"`
	Number    json.Number    `json:"number"`
	Any       any            `json:"any"`
	Compact   jsonCompact    `json:"compact"`
	Time      time.Time      `json:"time"`
	Zone      time.Time      `json:"zone"`
	TimePtr   *time.Time     `json:"time_ptr"`
	IP        net.IP         `json:"ip"`
	Floats    []float64      `json:"floats"`
	Float32s  []float32      `json:"float32s"`
	Uint      uint64         `json:"uint"`
	Int       int64          `json:"int"`
	Bool      bool           `json:"bool,omitempty"`
	Array     [2]int         `json:"array"`
	Interface error          `json:"interface"`
	unexposed int
}

// TestJSONFormatByteIdentical: JSONFormat writes what huma's default
// (encoding/json) writes for the kinds of values responses carry, strings
// with every class of character included, and fails where it fails. The
// kinds where segmentio differs are left out here and kept out of every
// response by app's TestResponseTypesEncodeAlike (JSONDeviation).
func TestJSONFormatByteIdentical(t *testing.T) {
	t.Parallel()
	s := "s<>&\u2028\u2029"
	at := time.Date(2026, 11, 24, 12, 0, 0, 123456789, time.UTC)
	v := jsonOuter{
		jsonInner: jsonInner{X: 1}, Pagination: &Pagination{Limit: 50}, Name: "a \"b\" \\ <c> & d", Skip: "no", Dash: "dash", Quoted: 7,
		NilPtr: nil, Empty: []string{}, Ints: map[int]string{10: "ten", -2: "minus", 3: "three"},
		Bytes:  []byte("\x00\xff bytes"),
		Number: "12.50", Any: map[string]any{"z": 1.5, "a": []any{nil, true, "x", 3}, "m": &s}, Time: at,
		Zone: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("X", -5*3600-30*60)), TimePtr: &at,
		IP: net.ParseIP("2001:db8::1"), Floats: []float64{0, -0.0, 1, -1.5, 0.1, 1e20, 1e21, 123456789.123, 1e-6, 1e-7, math.MaxFloat64, math.SmallestNonzeroFloat64, 3.0000000000000004},
		Float32s: []float32{0.1, 1e21, 1e-7, 16777217, math.MaxFloat32}, Uint: math.MaxUint64, Int: math.MinInt64, Array: [2]int{1, 2},
		Interface: errors.New("err"),
	}
	requireSameJSON(t, v)
	requireSameJSON(t, &v)
	requireSameJSON(t, jsonOuter{}) // the embedded *Pagination nil: its fields left out
	requireSameJSON(t, []any{nil, 1, "x", []int(nil), map[string]any(nil), struct{}{}})
	requireSameJSON(t, ListBody[jsonOuter]{Data: []jsonOuter{v, {}}, Pagination: Pagination{Limit: 2, HasMore: true}})

	// The error envelope, through its own MarshalJSON (keys sorted, HTML escaped inside it).
	requireSameJSON(t, &Error{Detail: ErrorDetail{Code: "member_exists", Message: "a <b> & \"c\" \u2028",
		Fields: map[string]any{"existing_member_id": "mem_<1>"}}})
	requireSameJSON(t, &Error{Detail: ErrorDetail{Code: "not_found", Message: "member not found"}})

	// Failures fail in both.
	requireSameJSON(t, map[string]any{"f": math.NaN()})
	requireSameJSON(t, []float64{math.Inf(1)})
	requireSameJSON(t, jsonFailing{})
	requireSameJSON(t, make(chan int))

	// Strings: every ASCII byte, invalid UTF-8, surrogates' bytes, the
	// separators, and random runes from all planes.
	every := jsontest.EveryByte()
	requireSameJSON(t, every)
	requireSameJSON(t, map[string]string{every: "key"})
	requireSameJSON(t, []string{"\xed\xa0\x80", "\xf4\x90\x80\x80", "a\xc3", "\u2028\u2029\ufeff\ufffd", "\x7f", "日本語 🎉"})
	rng := rand.New(rand.NewPCG(15, 15))
	for range 2000 {
		b := jsontest.Random(rng)
		requireSameJSON(t, struct {
			S string            `json:"s"`
			M map[string]string `json:"m"`
		}{b, map[string]string{b: b}})
	}
}

type jsonKey string

func (k jsonKey) MarshalText() ([]byte, error) { return []byte("k:" + string(k)), nil }

// TestJSONDeviation: the guard names each kind segmentio encodes
// differently, wherever it hides in a type, and passes what encodes alike.
func TestJSONDeviation(t *testing.T) {
	t.Parallel()
	for _, v := range []any{
		struct{ D time.Duration }{},
		struct{ R []json.RawMessage }{},
		struct{ M map[jsonKey]int }{},
		struct{ A any }{},
		struct{ E error }{},
		struct{ P *struct{ IP net.IP } }{},
		ListBody[struct{ D *time.Duration }]{},
	} {
		require.NotEmpty(t, JSONDeviation(reflect.TypeOf(v)), "%T", v)
	}
	// Each of those does encode differently (or fails in one only).
	for _, v := range []any{time.Second, map[jsonKey]int{"a": 1}, json.RawMessage(` {"a" : 1} `)} {
		var std, seg bytes.Buffer
		errStd := huma.DefaultJSONFormat.Marshal(&std, v)
		errSeg := JSONFormat.Marshal(&seg, v)
		require.True(t, errStd != nil || errSeg != nil || std.String() != seg.String(), "%T: %s", v, seg.String())
	}
	for _, v := range []any{
		jsonOuter{}.jsonInner, ListBody[Pagination]{}, &Error{},
		struct {
			T  time.Time
			P  *time.Time
			M  map[string]string
			I  map[int]bool
			S  []*string
			F  float64
			x  any
			Ig any `json:"-"`
		}{},
	} {
		require.Empty(t, JSONDeviation(reflect.TypeOf(v)), "%T", v)
	}
}
