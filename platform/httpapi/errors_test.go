package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/fault"
)

func TestConvert(t *testing.T) {
	t.Parallel()
	parse := &huma.ErrorDetail{Location: "body", Message: "unexpected end of JSON input", Value: `{"a":`}
	unknown := &huma.ErrorDetail{Location: "body.colour", Message: "unexpected property", Value: map[string]any{}}
	typeErr := &huma.ErrorDetail{Location: "body.name", Message: "expected string", Value: 5}
	member := fault.New(fault.Conflict, "member_exists", "already there").With("existing_member_id", "mem_1")

	cases := []struct {
		name   string
		status int
		msg    string
		errs   []error
		want   int
		code   string
		fields map[string]any
	}{
		{"body parse error", 400, "validation failed", []error{parse}, 400, "invalid_json", nil},
		{"unknown field", 422, "validation failed", []error{unknown}, 400, "unknown_field", nil},
		{"unknown field among others", 422, "validation failed", []error{typeErr, unknown}, 400, "unknown_field", nil},
		{"type error", 422, "validation failed", []error{typeErr}, 400, "invalid_request", nil},
		{"body required", 400, "request body is required", nil, 400, "invalid_request", nil},
		{"fault with fields", 500, "unexpected error occurred", []error{member}, 409, "member_exists", map[string]any{"existing_member_id": "mem_1"}},
		{"wrapped fault", 500, "x", []error{errors.Join(errors.New("ctx"), fault.NotFoundf("no"))}, 404, "not_found", nil},
		{"internal fault hides message", 500, "x", []error{fault.New(fault.Internal, "boom", "secret detail")}, 500, "server_error", nil},
		{"plain error is 500", 500, "unexpected error occurred", []error{errors.New("pq: password=hunter2")}, 500, "server_error", nil},
		{"unavailable keeps its code", 500, "x", []error{fault.New(fault.Unavailable, "dns_busy", "retry")}, 503, "dns_busy", nil},
		{"413", 413, "too big", nil, 413, "payload_too_large", nil},
		{"415", 415, "bad type", nil, 415, "unsupported_media_type", nil},
		{"404", 404, "nope", nil, 404, "not_found", nil},
		{"405", 405, "nope", nil, 405, "method_not_allowed", nil},
		{"429", 429, "slow down", nil, 429, "rate_limited", nil},
		{"406 becomes invalid_request", 406, "not acceptable", nil, 406, "invalid_request", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := Convert(tc.status, tc.msg, tc.errs...)
			require.Equal(t, tc.want, e.GetStatus())
			require.Equal(t, tc.code, e.Detail.Code)
			b, err := json.Marshal(e)
			require.NoError(t, err)
			var env map[string]map[string]any
			require.NoError(t, json.Unmarshal(b, &env))
			require.Equal(t, tc.code, env["error"]["code"])
			require.NotEmpty(t, env["error"]["message"])
			for k, v := range tc.fields {
				require.Equal(t, v, env["error"][k])
			}
			if tc.want >= 500 {
				require.NotContains(t, string(b), "hunter2")
				require.NotContains(t, string(b), "secret detail")
			}
		})
	}
}

func TestPage(t *testing.T) {
	t.Parallel()
	items, pg := Page(PageParams{Limit: 2, Offset: 4}, []int{1, 2, 3})
	require.Equal(t, []int{1, 2}, items)
	require.True(t, pg.HasMore)
	require.Equal(t, 6, *pg.NextOffset)
	items, pg = Page(PageParams{Limit: 2, Offset: 0}, []int(nil))
	require.Equal(t, []int{}, items)
	require.False(t, pg.HasMore)
	require.Nil(t, pg.NextOffset)
}

func TestFromFaultKinds(t *testing.T) {
	t.Parallel()
	for kind, status := range kindStatus {
		e := FromFault(fault.New(kind, "c", "m"))
		if status == http.StatusInternalServerError {
			require.Equal(t, "server_error", e.Detail.Code)
		}
		require.Equal(t, status, e.GetStatus())
	}
}
