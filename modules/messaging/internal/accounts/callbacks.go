package accounts

import (
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/bandwidth"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/carrierhttp"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/telnyx"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/twilio"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
)

// Callbacks routes carriers' callbacks to the handler of the account they
// belong to: Telnyx's and Bandwidth's by the account id in the path,
// Twilio's (one pair of paths for every Twilio account) by the AccountSid
// they carry. A callback for no account, or for an account of another
// provider, is refused with 403 like a bad signature.
type Callbacks struct {
	svc   *Service
	sink  carrier.Sink
	clock clock.Clock
	log   *slog.Logger
	now   func() time.Time
	// base is PUBLIC_BASE_URL (Twilio signs the URL it called).
	base string
	// envTwilio are the default account's Twilio handlers (nil unless
	// CARRIER=twilio), with its SID.
	envSID                string
	envStatus, envInbound http.Handler

	mu       sync.Mutex
	handlers map[string]cachedHandler
}

type cachedHandler struct {
	h       http.Handler
	updated time.Time
	at      time.Time
}

// NewCallbacks returns the router of callbacks. envSID and envToken are
// TWILIO_* when CARRIER=twilio ("" otherwise).
func NewCallbacks(svc *Service, sink carrier.Sink, base, envSID, envToken string, clk clock.Clock, now func() time.Time, log *slog.Logger) *Callbacks {
	c := &Callbacks{svc: svc, sink: sink, clock: clk, log: log, now: now, base: base, envSID: envSID, handlers: map[string]cachedHandler{}}
	if envSID != "" {
		l := log.With("component", "twilio")
		c.envStatus = twilio.NewCallbackHandler(sink, envToken, base, clk, l)
		c.envInbound = twilio.NewInboundHandler(sink, envToken, base, clk, l)
	}
	return c
}

// Routes are the callback endpoints, by ServeMux pattern, for the public
// listener.
func (c *Callbacks) Routes() map[string]http.Handler {
	return map[string]http.Handler{
		http.MethodPost + " " + twilio.StatusPath:                        c.twilio(false),
		http.MethodPost + " " + twilio.InboundPath:                       c.twilio(true),
		http.MethodPost + " " + telnyx.CallbackPath + "/{account_id}":    c.byPath(domain.ProviderTelnyx),
		http.MethodPost + " " + bandwidth.CallbackPath + "/{account_id}": c.byPath(domain.ProviderBandwidth),
	}
}

func refuse(w http.ResponseWriter) {
	carrierhttp.WriteError(w, http.StatusForbidden, fault.CodeForbidden, "not a callback of a carrier account of this service")
}

// byPath serves callbacks naming their account in the path.
func (c *Callbacks) byPath(p domain.Provider) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accountID := r.PathValue("account_id")
		h, err := c.handler(r, string(p)+":"+accountID, func() (domain.SealedAccount, error) { return c.svc.store.Account(r.Context(), accountID) },
			func(a domain.CarrierAccount) (http.Handler, error) {
				if a.Provider != p {
					return nil, errWrongProvider
				}
				if p == domain.ProviderTelnyx {
					return telnyx.NewHandler(c.sink, a.Credentials["public_key"], c.clock, c.log.With("component", "telnyx", "account_id", a.ID))
				}
				return bandwidth.NewHandler(c.sink, a.Credentials["callback_username"], a.Credentials["callback_password"], c.clock,
					c.log.With("component", "bandwidth", "account_id", a.ID)), nil
			})
		if err != nil {
			c.log.Warn("carrier callback refused: no such account", "provider", p, "account_id", accountID, "err", err)
			refuse(w)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// twilio serves Twilio's status (inbound false) or incoming-message
// callbacks, choosing the account by the AccountSid parameter.
func (c *Callbacks) twilio(inbound bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, carrierhttp.MaxCallbackBytes)
		if err := r.ParseForm(); err != nil {
			carrierhttp.WriteError(w, http.StatusBadRequest, fault.CodeInvalidRequest, "the body is not a form")
			return
		}
		sid := r.PostForm.Get("AccountSid")
		if c.envSID != "" && (sid == c.envSID || sid == "") {
			if inbound {
				c.envInbound.ServeHTTP(w, r)
			} else {
				c.envStatus.ServeHTTP(w, r)
			}
			return
		}
		key := "twilio:" + sid
		if inbound {
			key += ":in"
		}
		h, err := c.handler(r, key, func() (domain.SealedAccount, error) {
			return c.svc.store.AccountByLookup(r.Context(), domain.ProviderTwilio, sid)
		}, func(a domain.CarrierAccount) (http.Handler, error) {
			l := c.log.With("component", "twilio", "account_id", a.ID)
			if inbound {
				return twilio.NewInboundHandler(c.sink, a.Credentials["auth_token"], c.base, c.clock, l), nil
			}
			return twilio.NewCallbackHandler(c.sink, a.Credentials["auth_token"], c.base, c.clock, l), nil
		})
		if err != nil || sid == "" {
			c.log.Warn("twilio callback refused: no account with its AccountSid", "path", r.URL.Path)
			refuse(w)
			return
		}
		h.ServeHTTP(w, r)
	})
}

var errWrongProvider = errors.New("the account is with another provider")

// handler returns the cached handler under key, rebuilt from the account
// load finds when the account changed or the cache aged.
func (c *Callbacks) handler(r *http.Request, key string, load func() (domain.SealedAccount, error),
	build func(domain.CarrierAccount) (http.Handler, error)) (http.Handler, error) {
	now := c.now()
	c.mu.Lock()
	ch, ok := c.handlers[key]
	c.mu.Unlock()
	if ok && now.Sub(ch.at) < CacheTTL {
		return ch.h, nil
	}
	sa, err := load()
	if err != nil {
		return nil, err
	}
	if sa.Account.Default {
		return nil, errWrongProvider
	}
	if !ok || !sa.Account.UpdatedAt.Equal(ch.updated) {
		a, err := c.svc.open(sa)
		if err != nil {
			return nil, err
		}
		h, err := build(a)
		if err != nil {
			return nil, err
		}
		ch = cachedHandler{h: h, updated: sa.Account.UpdatedAt}
	}
	ch.at = now
	c.mu.Lock()
	c.handlers[key] = ch
	c.mu.Unlock()
	return ch.h, nil
}
