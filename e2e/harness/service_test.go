package harness_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/teamtext/teamtext/e2e/harness"
)

func TestMetric(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" || r.Header.Get("Authorization") != "Bearer "+harness.AdminToken {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, "# TYPE x_total counter\nx_total{a=\"b\"} 7\nx_total 42\ny 1.5e+06\n")
	}))
	defer srv.Close()
	ctx := context.Background()
	if v, err := harness.Metric(ctx, srv.URL, "x_total"); err != nil || v != 42 {
		t.Fatalf("x_total = %v, %v; want 42", v, err)
	}
	if v, err := harness.Metric(ctx, srv.URL, "y"); err != nil || v != 1.5e6 {
		t.Fatalf("y = %v, %v", v, err)
	}
	if _, err := harness.Metric(ctx, srv.URL, "z"); err == nil {
		t.Fatal("a missing metric read")
	}
}
