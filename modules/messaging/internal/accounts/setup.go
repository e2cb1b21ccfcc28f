package accounts

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/simulator"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/twilio"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/config"
	"github.com/teamtext/teamtext/platform/secrets"
)

// Open returns the carrier accounts' service, sealing credentials under
// SECRETS_KEY (and opening those sealed under SECRETS_KEY_PREVIOUS).
func Open(store Store, cfg config.Config, clk clock.Clock, log *slog.Logger) (*Service, error) {
	keys, err := secrets.New(cfg.SecretsKey, cfg.SecretsKeyPrevious)
	if err != nil {
		return nil, err
	}
	return New(store, keys, clk, domain.Provider(cfg.Carrier), log.With("component", "carrier_accounts")), nil
}

// Reseal reseals every account's credentials under cfg.SecretsKey,
// opening those sealed under cfg.SecretsKeyPrevious, and reports progress
// after each account. It returns how many it resealed.
func Reseal(ctx context.Context, store Store, cfg config.Config, log *slog.Logger, progress func(done, total int)) (int, error) {
	svc, err := Open(store, cfg, clock.Real{}, log)
	if err != nil {
		return 0, err
	}
	return svc.Rotate(ctx, progress)
}

// NewCarrier picks the default account's adapter (CARRIER) and puts the
// accounts' router in front of it: each text goes to the adapter of the
// account its sending number uses. The simulator stays provided either
// way: the admin API's outbox and outcome endpoints use it, and it serves
// the accounts of provider simulator.
func NewCarrier(cfg config.Config, sim *simulator.Simulator, svc *Service, log *slog.Logger) (carrier.Carrier, error) {
	var def carrier.Carrier = sim
	if cfg.Carrier == "twilio" {
		tw, err := twilio.New(twilio.Config{AccountSID: cfg.TwilioAccountSID, AuthToken: cfg.TwilioAuthToken,
			APIURL: cfg.TwilioAPIURL, PublicBaseURL: cfg.PublicBaseURL}, log.With("component", "twilio"))
		if err != nil {
			return nil, err
		}
		def = tw
	}
	return NewRouter(def, svc, Adapters{PublicBaseURL: cfg.PublicBaseURL, Simulator: sim, Log: log},
		time.Now, log.With("component", "carrier_router")), nil
}

// CallbackRoutes returns the callback endpoints of every provider, keyed
// by ServeMux pattern; each finds the account a callback belongs to and
// verifies it with that account's credentials (the default account's are
// TWILIO_* when CARRIER=twilio).
func CallbackRoutes(cfg config.Config, svc *Service, sink carrier.Sink, clk clock.Clock, log *slog.Logger) map[string]http.Handler {
	sid, token := "", ""
	if cfg.Carrier == "twilio" {
		sid, token = cfg.TwilioAccountSID, cfg.TwilioAuthToken
	}
	return NewCallbacks(svc, sink, cfg.PublicBaseURL, sid, token, clk, time.Now, log).Routes()
}
