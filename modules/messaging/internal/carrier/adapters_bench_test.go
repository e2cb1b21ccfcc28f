package carrier_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/bandwidth"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/telnyx"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/twilio"
)

// canned answers every request with one fixed body, the same cost for each
// provider, so that the benchmark measures the adapters, not their fakes.
func canned(b *testing.B, status int, body string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// BenchmarkAdapterSend is each adapter's cost per text, building the
// request and reading the answer, against a server that answers every
// request with the provider's canned acceptance: the Telnyx and Bandwidth
// adapters against the Twilio adapter, side by side in one run.
func BenchmarkAdapterSend(b *testing.B) {
	log := slog.New(slog.DiscardHandler)
	const base = "https://teamtext.example.test"
	adapters := map[string]func(b *testing.B) carrier.Carrier{
		"twilio": func(b *testing.B) carrier.Carrier {
			u := canned(b, http.StatusCreated, `{"sid":"SM0123456789abcdef0123456789abcdef","status":"queued","num_segments":"1","to":"+12025551000","from":"+12025550100"}`)
			c, err := twilio.New(twilio.Config{AccountSID: "AC0123456789abcdef0123456789abcdef", AuthToken: "fedcba9876543210fedcba9876543210",
				APIURL: u, PublicBaseURL: base}, log)
			if err != nil {
				b.Fatal(err)
			}
			return c
		},
		"telnyx": func(b *testing.B) carrier.Carrier {
			u := canned(b, http.StatusOK, `{"data":{"id":"40385f64-5717-4562-b3fc-2c963f66afa6","record_type":"message","to":[{"phone_number":"+12025551000","status":"queued"}],"from":{"phone_number":"+12025550100"},"parts":1,"errors":[]}}`)
			c, err := telnyx.New(telnyx.Config{AccountID: "cac_bench", APIKey: "KEYbench", PublicKey: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
				MessagingProfileID: "prof-bench", APIURL: u, PublicBaseURL: base}, log)
			if err != nil {
				b.Fatal(err)
			}
			return c
		},
		"bandwidth": func(b *testing.B) carrier.Carrier {
			u := canned(b, http.StatusAccepted, `{"id":"1589228074636lm4k2je7j7jklbn2","owner":"+12025550100","applicationId":"app","segmentCount":1,"direction":"out","to":["+12025551000"],"from":"+12025550100","text":"x","tag":"dlv"}`)
			c, err := bandwidth.New(bandwidth.Config{AccountID: "990001", Username: "u", Password: "p", ApplicationID: "app",
				CallbackUsername: "cb", CallbackPassword: "cbp", APIURL: u}, log)
			if err != nil {
				b.Fatal(err)
			}
			return c
		},
	}
	for _, name := range []string{"twilio", "telnyx", "bandwidth"} {
		b.Run(name, func(b *testing.B) {
			c := adapters[name](b)
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				m := carrier.Message{DeliveryID: fmt.Sprintf("dlv_%d", i), TeamID: "team_bench", From: "+12025550100",
					To: fmt.Sprintf("+1202555%04d", 1000+i%9000), Body: "Practice moves to 6pm. Reply STOP to opt out.", Segments: 1}
				if _, err := c.Send(ctx, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
