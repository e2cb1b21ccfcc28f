package accounts

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/bandwidth"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/telnyx"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/twilio"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/db"
)

// CacheTTL is how long a node trusts what it read about accounts and
// numbers: a number moved to another account, or an account's new
// credentials, take effect on every node within it. The accounts
// themselves live in Postgres; this is only a read-through cache.
const CacheTTL = 10 * time.Second

// Adapters builds adapters for opened accounts.
type Adapters struct {
	// PublicBaseURL is where carriers reach this service (callbacks).
	PublicBaseURL string
	// Simulator serves accounts of provider simulator.
	Simulator carrier.Carrier
	Log       *slog.Logger
}

// Build returns the adapter of an opened (non-default) account.
func (b Adapters) Build(a domain.CarrierAccount) (carrier.Carrier, error) {
	c := a.Credentials
	log := b.Log.With("component", string(a.Provider), "account_id", a.ID)
	switch a.Provider {
	case domain.ProviderSimulator:
		return b.Simulator, nil
	case domain.ProviderTwilio:
		return twilio.New(twilio.Config{AccountSID: c["account_sid"], AuthToken: c["auth_token"], APIURL: a.APIURL,
			PublicBaseURL: b.PublicBaseURL}, log)
	case domain.ProviderTelnyx:
		return telnyx.New(telnyx.Config{AccountID: a.ID, APIKey: c["api_key"], PublicKey: c["public_key"],
			MessagingProfileID: c["messaging_profile_id"], APIURL: a.APIURL, PublicBaseURL: b.PublicBaseURL}, log)
	case domain.ProviderBandwidth:
		return bandwidth.New(bandwidth.Config{AccountID: c["account_id"], Username: c["username"], Password: c["password"],
			ApplicationID: c["application_id"], CallbackUsername: c["callback_username"], CallbackPassword: c["callback_password"],
			APIURL: a.APIURL}, log)
	}
	return nil, fmt.Errorf("carrier account %s: unknown provider %q", a.ID, a.Provider)
}

// Router is the carrier.Carrier messaging sends through: each text goes to
// the adapter of the account its sending number (From) uses, the default
// account's for a number messaging has no row for.
type Router struct {
	def      carrier.Carrier
	store    Store
	svc      *Service
	adapters Adapters
	now      func() time.Time
	log      *slog.Logger

	mu       sync.Mutex
	numbers  map[string]cachedNumber
	built    map[string]cachedAdapter
	breakers map[string]*breaker
	others   bool
	othersAt time.Time
}

type cachedNumber struct {
	account string
	at      time.Time
}

type cachedAdapter struct {
	c       carrier.Carrier
	updated time.Time // the account's updated_at it was built from
	at      time.Time
}

// NewRouter returns the router; def is the default account's adapter.
// When def takes batches (the simulator), so does the router.
func NewRouter(def carrier.Carrier, svc *Service, adapters Adapters, now func() time.Time, log *slog.Logger) carrier.Carrier {
	r := &Router{def: def, store: svc.store, svc: svc, adapters: adapters, now: now, log: log,
		numbers: map[string]cachedNumber{}, built: map[string]cachedAdapter{}, breakers: map[string]*breaker{}}
	if bs, ok := def.(carrier.BatchSender); ok {
		return &batchRouter{Router: r, batch: bs}
	}
	return r
}

// Name is the default account's adapter's name.
func (r *Router) Name() string { return r.def.Name() }

// Paced reports whether sends are planned at each number's pace: when the
// default adapter paces, or when any account at a real carrier exists.
func (r *Router) Paced(ctx context.Context) (bool, error) {
	if p, err := r.def.Paced(ctx); err != nil || p {
		return p, err
	}
	r.mu.Lock()
	fresh, others := r.now().Sub(r.othersAt) < CacheTTL, r.others
	r.mu.Unlock()
	if fresh {
		return others, nil
	}
	others, err := r.store.OtherAccounts(db.WithoutTx(ctx))
	if err != nil {
		return false, err
	}
	r.mu.Lock()
	r.others, r.othersAt = others, r.now()
	r.mu.Unlock()
	return others, nil
}

// NumberFault maps any adapter's failure code (their code spaces do not
// overlap: Twilio's 2xxxx and 3xxxx, Telnyx's 1xxxx and 4xxxx, Bandwidth's
// four digits).
func (r *Router) NumberFault(code string) domain.NumberFault {
	for _, f := range []func(string) domain.NumberFault{carrier.Classifier(r.def), twilio.NumberFault, telnyx.NumberFault, bandwidth.NumberFault} {
		if nf := f(code); nf != "" {
			return nf
		}
	}
	return ""
}

// Send hands m to the adapter of its sending number's account, behind the
// account's breaker.
func (r *Router) Send(ctx context.Context, m carrier.Message) (carrier.Receipt, error) {
	// Send runs from a pass's parallel calls, which cannot share its
	// transaction's connection: the lookup goes to the pool.
	accts, err := r.accountsOf(db.WithoutTx(ctx), []string{m.From})
	if err != nil {
		return carrier.Receipt{}, err
	}
	c, err := r.adapter(ctx, accts[m.From])
	if err != nil {
		return carrier.Receipt{}, err
	}
	return r.sendVia(ctx, accts[m.From], c, m)
}

// accountsOf returns the account of each number, from the cache or one
// statement for those it does not hold fresh, sent in ctx's transaction if
// it carries one (callers that run concurrently detach it first).
func (r *Router) accountsOf(ctx context.Context, numbers []string) (map[string]string, error) {
	now := r.now()
	out := make(map[string]string, len(numbers))
	var missing []string
	r.mu.Lock()
	for _, n := range numbers {
		if c, ok := r.numbers[n]; ok && now.Sub(c.at) < CacheTTL {
			out[n] = c.account
		} else {
			missing = append(missing, n)
		}
	}
	r.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	found, err := r.store.AccountsOfNumbers(ctx, missing)
	if err != nil {
		return nil, fmt.Errorf("carrier account of sending numbers: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range missing {
		a, ok := found[n]
		if !ok {
			a = domain.DefaultAccountID
		}
		out[n] = a
		r.numbers[n] = cachedNumber{account: a, at: now}
	}
	return out, nil
}

// adapter returns the account's adapter, rebuilt when the account changed.
func (r *Router) adapter(ctx context.Context, accountID string) (carrier.Carrier, error) {
	if accountID == domain.DefaultAccountID || accountID == "" {
		return r.def, nil
	}
	now := r.now()
	r.mu.Lock()
	c, ok := r.built[accountID]
	r.mu.Unlock()
	if ok && now.Sub(c.at) < CacheTTL {
		return c.c, nil
	}
	sa, err := r.store.Account(db.WithoutTx(ctx), accountID)
	if err != nil {
		return nil, fmt.Errorf("carrier account %s: %w", accountID, err)
	}
	if !ok || !sa.Account.UpdatedAt.Equal(c.updated) {
		a, err := r.svc.open(sa)
		if err != nil {
			return nil, err
		}
		built, err := r.adapters.Build(a)
		if err != nil {
			r.log.Warn("carrier account unusable; its numbers' texts wait", "account_id", accountID, "err", err)
			return nil, fmt.Errorf("carrier account %s: %w", accountID, err)
		}
		c = cachedAdapter{c: built, updated: sa.Account.UpdatedAt}
	}
	c.at = now
	r.mu.Lock()
	r.built[accountID] = c
	r.mu.Unlock()
	return c.c, nil
}

// batchRouter is the router over a default adapter that takes batches
// (the simulator): the default account's texts go in one call, others'
// one by one to their adapters.
type batchRouter struct {
	*Router
	batch carrier.BatchSender
}

// SendMany implements carrier.BatchSender.
func (r *batchRouter) SendMany(ctx context.Context, ms []carrier.Message) ([]carrier.Result, error) {
	froms := make([]string, 0, len(ms))
	for _, m := range ms {
		froms = append(froms, m.From)
	}
	// One call, in its caller's transaction: a fan-out job holding its
	// transaction's connection must not wait for a second one (twenty
	// such jobs on a pool of twenty waited for each other until their
	// timeout).
	accts, err := r.accountsOf(ctx, froms)
	if err != nil {
		return nil, err
	}
	out := make([]carrier.Result, len(ms))
	var defIdx []int
	var defMsgs []carrier.Message
	for i, m := range ms {
		a := accts[m.From]
		if a == domain.DefaultAccountID {
			defIdx, defMsgs = append(defIdx, i), append(defMsgs, m)
			continue
		}
		c, err := r.adapter(ctx, a)
		if err != nil {
			out[i].Err = err
			continue
		}
		out[i].Receipt, out[i].Err = r.sendVia(ctx, a, c, m)
		if out[i].Err == nil && out[i].Receipt.At.IsZero() {
			out[i].Receipt.At = r.now()
		}
	}
	if len(defMsgs) > 0 {
		rs, err := r.batch.SendMany(ctx, defMsgs)
		for j, i := range defIdx {
			if err != nil {
				out[i].Err = err
			} else {
				out[i] = rs[j]
			}
		}
	}
	return out, nil
}
