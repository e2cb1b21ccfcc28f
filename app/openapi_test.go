package app

import (
	"context"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/config"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// TestDocumentsOffline: both APIs' documents build from the code alone (no
// database), and each of the four loads, validates and routes with
// kin-openapi, an implementation independent of huma.
func TestDocumentsOffline(t *testing.T) {
	t.Parallel()
	cfg, err := config.Load(func(string) string { return "" }, config.Need{})
	require.NoError(t, err)
	pub, adm, err := Documents(cfg, "test")
	require.NoError(t, err)
	require.NotNil(t, pub.OpenAPI().Paths["/team"], "the public document has GET /team")
	require.NotNil(t, adm.OpenAPI().Paths["/teams"], "the admin document has /teams")
	for name, api := range map[string]huma.API{"public": pub, "admin": adm} {
		for _, version := range []string{"3.1", "3.0"} {
			b, err := httpapi.Document(api, version, false)
			require.NoError(t, err)
			loaded, err := openapi3.NewLoader().LoadFromData(b)
			require.NoError(t, err, "%s %s loads", name, version)
			require.NoError(t, loaded.Validate(context.Background()), "%s %s validates", name, version)
			_, err = legacy.NewRouter(loaded)
			require.NoError(t, err, "%s %s routes", name, version)
		}
	}
}
