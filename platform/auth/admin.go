package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/platform/fault"
)

// AdminMiddleware admits requests bearing the admin token. Both sides are
// hashed first so the comparison is constant-time regardless of length.
func AdminMiddleware(api huma.API, token string) func(huma.Context, func(huma.Context)) {
	want := sha256.Sum256([]byte(token))
	return func(ctx huma.Context, next func(huma.Context)) {
		h := ctx.Header("Authorization")
		got := sha256.Sum256([]byte(strings.TrimPrefix(h, "Bearer ")))
		if !strings.HasPrefix(h, "Bearer ") || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			_ = huma.WriteErr(api, ctx, http.StatusUnauthorized, "",
				fault.New(fault.Unauthorized, CodeUnauthorized, "send the header Authorization: Bearer followed by the admin token"))
			return
		}
		next(ctx)
	}
}
