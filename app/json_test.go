package app

import (
	"bytes"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/config"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// TestResponseTypesEncodeAlike: every response body of both APIs is made
// of kinds httpapi.JSONFormat encodes exactly as huma's default
// encoding/json format (httpapi.JSONDeviation finds none), and the OpenAPI
// documents themselves (huma's types with their own MarshalJSON, then the
// generic map the edge serves) come out byte for byte the same from both.
func TestResponseTypesEncodeAlike(t *testing.T) {
	t.Parallel()
	cfg, err := config.Load(func(string) string { return "" }, config.Need{})
	require.NoError(t, err)
	pub, adm, err := Documents(cfg, "test")
	require.NoError(t, err)
	for name, api := range map[string]huma.API{"public": pub, "admin": adm} {
		oapi := api.OpenAPI()
		reg := oapi.Components.Schemas
		checked := 0
		for path, item := range oapi.Paths {
			for _, op := range []*huma.Operation{item.Get, item.Post, item.Put, item.Patch, item.Delete} {
				if op == nil {
					continue
				}
				for status, resp := range op.Responses {
					for _, mt := range resp.Content {
						if mt.Schema == nil || !strings.HasPrefix(mt.Schema.Ref, "#/") {
							continue
						}
						typ := reg.TypeFromRef(mt.Schema.Ref)
						require.NotNil(t, typ, "%s %s %s %s", name, op.Method, path, status)
						require.Empty(t, httpapi.JSONDeviation(typ), "%s %s %s %s: %s", name, op.Method, path, status, typ)
						checked++
					}
				}
			}
		}
		require.Greater(t, checked, 20, name)

		var want, got bytes.Buffer
		require.NoError(t, huma.DefaultJSONFormat.Marshal(&want, oapi))
		require.NoError(t, httpapi.JSONFormat.Marshal(&got, oapi))
		require.Equal(t, want.String(), got.String(), "%s: huma's OpenAPI types", name)
		for _, version := range []string{"3.1", "3.0"} {
			doc, err := httpapi.Document(api, version, false)
			require.NoError(t, err)
			var v any
			require.NoError(t, huma.DefaultJSONFormat.Unmarshal(doc, &v))
			want.Reset()
			got.Reset()
			require.NoError(t, huma.DefaultJSONFormat.Marshal(&want, v))
			require.NoError(t, httpapi.JSONFormat.Marshal(&got, v))
			require.Equal(t, want.String(), got.String(), "%s %s document", name, version)
			require.Greater(t, got.Len(), 10000)
		}
	}
}
