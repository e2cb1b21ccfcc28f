package auth

import (
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/httpapi"
	"github.com/teamtext/teamtext/platform/ratelimit"
)

// Codes of the access rules (spec §7).
const (
	CodePlanRequired = "plan_required"
	CodeCardRequired = "card_required"
	CodeRateLimited  = fault.CodeRateLimited
)

// The spec's limits (§8).
var (
	RequestPolicy = ratelimit.Policy{{Name: "requests", Limit: 120, Window: time.Minute}}
	SendPolicy    = ratelimit.Policy{{Name: "sends-minute", Limit: 20, Window: time.Minute}, {Name: "sends-hour", Limit: 200, Window: time.Hour}}
	HeavyPolicy   = ratelimit.Policy{{Name: "heavy", Limit: 10, Window: time.Minute}}
	IPPolicy      = ratelimit.Policy{{Name: "unauthenticated", Limit: 60, Window: time.Minute}}
)

// Gate is the public API's bearer middleware. Its checks run in a fixed,
// documented order, each answering with the spec's status and code:
//
//  1. key: missing or malformed header → 401 unauthorized; unknown or
//     revoked key → 401 invalid_key (both counted against the IP limit,
//     60/min, and answered 429 past it);
//  2. key owner: creator no longer on the roster → 403 key_owner_inactive;
//     creator blocked → 403 sender_blocked;
//  3. team state: → 403 team_disabled, then 403 team_locked;
//  4. plan: below Team Plus, except any-plan operations → 403 plan_required;
//  5. card: writes without a card on file, except exempt ones → 403 card_required;
//  6. limits: requests (120/min), then the heavy pool (10/min) or the send
//     limits (20/min and 200/h) where the operation counts → 429 rate_limited.
//
// Every answer carries RateLimit-Policy and RateLimit for the limits checked.
//
// Checks 1 to 5 and the requests limit need one statement: the
// Authenticator reads the key with its creator, team and billing account
// (Principal.Team, Principal.Account) and, when they admit the request,
// counts it against the key's requests bucket. The heavy pool and the send
// limits are one statement more each, where the operation counts.
type Gate struct {
	api     huma.API
	authn   Authenticator
	limiter *ratelimit.Limiter
	log     *slog.Logger
}

// NewGate builds the gate.
func NewGate(api huma.API, authn Authenticator, limiter *ratelimit.Limiter, log *slog.Logger) *Gate {
	return &Gate{api: api, authn: authn, limiter: limiter, log: log}
}

// Middleware is the huma middleware.
func (g *Gate) Middleware(ctx huma.Context, next func(huma.Context)) {
	p, e := g.admit(ctx)
	if e != nil {
		for k, vs := range e.GetHeaders() { // WriteErr, unlike a handler's error, ignores them
			for _, v := range vs {
				ctx.AppendHeader(k, v)
			}
		}
		_ = huma.WriteErr(g.api, ctx, e.GetStatus(), "", e)
		return
	}
	next(huma.WithContext(ctx, WithPrincipal(ctx.Context(), p)))
}

// requestsBucket prefixes a key's bucket of the requests limit.
const requestsBucket = "requests:"

type limitCheck struct {
	bucket string
	policy ratelimit.Policy
}

// admit runs the checks in order and returns the principal, or the answer.
func (g *Gate) admit(hctx huma.Context) (Principal, *httpapi.Error) {
	ctx := hctx.Context()
	key, err := ParseBearer(hctx.Header("Authorization"))
	if err != nil {
		return Principal{}, g.unauthenticated(hctx, fault.New(fault.Unauthorized, CodeUnauthorized, "send the header Authorization: Bearer followed by an API key"))
	}
	op := hctx.Operation()
	access := httpapi.AccessOf(op)
	needCard := httpapi.IsWrite(op) && !access.NoCard
	requests, err := g.limiter.Check(RequestPolicy)
	if err != nil {
		return Principal{}, httpapi.Convert(http.StatusInternalServerError, "", err)
	}
	p, first, err := g.authn.Authenticate(ctx, key, Admission{Bucket: requestsBucket, Limit: requests, AnyPlan: access.AnyPlan, NeedCard: needCard})
	if f, ok := fault.As(err); ok && f.Kind == fault.Unauthorized {
		return Principal{}, g.unauthenticated(hctx, f)
	}
	if p.TeamID != "" {
		httpapi.AddLogAttrs(ctx, slog.String("team_id", p.TeamID), slog.String("key_id", p.KeyID))
	}
	if err != nil {
		return Principal{}, httpapi.Convert(http.StatusInternalServerError, "", err)
	}
	acc := p.Account
	if !access.AnyPlan && !acc.APIIncluded {
		return Principal{}, httpapi.FromFault(fault.New(fault.Forbidden, CodePlanRequired, "the API needs the Team Plus plan or above"))
	}
	if needCard && !acc.CardOnFile {
		return Principal{}, httpapi.FromFault(fault.New(fault.Forbidden, CodeCardRequired, "changes need a card on file"))
	}
	if first == nil {
		// The statement's conditions for counting and the checks above
		// disagree: a bug, not a client's doing. Check the limit alone so
		// the request is still counted.
		g.log.WarnContext(ctx, "the key's statement did not check the request limit of a request the gate admits; checking it alone",
			slog.String("team_id", p.TeamID), slog.String("key_id", p.KeyID), slog.String("operation", op.OperationID))
		d, err := g.limiter.Allow(ctx, requestsBucket+p.KeyID, RequestPolicy)
		if err != nil {
			return Principal{}, httpapi.Convert(http.StatusInternalServerError, "", err)
		}
		first = &d
	}
	decisions := []ratelimit.Decision{*first}
	if !first.Allowed {
		setRateHeaders(hctx, decisions...)
		return Principal{}, limited(*first)
	}
	var checks []limitCheck
	if access.Heavy {
		checks = append(checks, limitCheck{"heavy:" + p.KeyID, HeavyPolicy})
	}
	if access.Send {
		checks = append(checks, limitCheck{"sends:" + p.KeyID, SendPolicy})
	}
	for _, c := range checks {
		d, err := g.limiter.Allow(ctx, c.bucket, c.policy)
		if err != nil {
			return Principal{}, httpapi.Convert(http.StatusInternalServerError, "", err)
		}
		decisions = append(decisions, d)
		if !d.Allowed {
			setRateHeaders(hctx, decisions...)
			return Principal{}, limited(d)
		}
	}
	setRateHeaders(hctx, decisions...)
	return p, nil
}

// unauthenticated counts a request without a valid key against its IP.
func (g *Gate) unauthenticated(hctx huma.Context, f *fault.Error) *httpapi.Error {
	d, err := g.limiter.Allow(hctx.Context(), "ip:"+clientIP(hctx.RemoteAddr()), IPPolicy)
	if err != nil {
		return httpapi.Convert(http.StatusInternalServerError, "", err)
	}
	setRateHeaders(hctx, d)
	if !d.Allowed {
		return limited(d)
	}
	return httpapi.FromFault(f)
}

func limited(d ratelimit.Decision) *httpapi.Error {
	return httpapi.NewError(http.StatusTooManyRequests, CodeRateLimited, "rate limit reached; retry after the Retry-After delay").
		WithHeader("Retry-After", d.RetryAfterSeconds())
}

func setRateHeaders(hctx huma.Context, ds ...ratelimit.Decision) {
	var merged ratelimit.Decision
	for _, d := range ds {
		merged.Rules = append(merged.Rules, d.Rules...)
	}
	pol, st := merged.Headers()
	hctx.SetHeader("RateLimit-Policy", pol)
	hctx.SetHeader("RateLimit", st)
}

func clientIP(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		return remote
	}
	return host
}
