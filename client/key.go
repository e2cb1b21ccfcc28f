package client

import (
	"context"
	"net/http"
)

// WithKey makes every request carry the API key (Authorization: Bearer
// <key>). It is the one hand-written part of the package; `make client`
// rewrites only client.gen.go.
func WithKey(key string) ClientOption {
	return WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+key)
		return nil
	})
}
