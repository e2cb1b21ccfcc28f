package auth

import (
	"context"

	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/ratelimit"
)

// Principal is who a request acts for: the key, its team and its creator.
// The Authenticator reads it in one statement with the team's state and
// billing account, which handlers showing them (GET /team) reuse instead
// of reading them again.
type Principal struct {
	TeamID   string
	TeamCode string
	KeyID    string
	MemberID string // the key's creator; a key acts on their behalf
	Team     TeamInfo
	Account  AccountAccess
}

// TeamInfo is the key's team as the gate read it.
type TeamInfo struct {
	Name     string
	Number   string // E.164, or "" when the team has none
	TimeZone string
}

// AccountAccess is the team's billing account as the gate read it: what the
// plan and card checks need, and what GET /team shows besides credits.
type AccountAccess struct {
	Plan         string
	APIIncluded  bool // the plan includes the API (Team Plus and above)
	CardOnFile   bool
	PaymentState string
	Trial        bool
	TrialCredits int
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal of an authenticated request.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// MustPrincipal returns the principal; operations behind the middleware
// always have one, so its absence is a wiring bug (500).
func MustPrincipal(ctx context.Context) Principal {
	p, ok := PrincipalFrom(ctx)
	if !ok {
		panic("auth: no principal in context (operation not behind the bearer middleware)")
	}
	return p
}

// Authenticator resolves a well-formed key to its principal. It returns a
// fault: 401 invalid_key for unknown or revoked keys, and the spec's other
// access codes for keys that exist but may not act.
//
// In the same statement it checks adm's limit on the key's bucket (one
// round trip for the whole gate but its extra limits), counting a hit if
// and only if the key may act on the operation: it exists, matches its
// hash and is not revoked; its creator is on the roster and not blocked;
// its team is neither disabled nor locked and has a billing account; the
// plan includes the API unless adm.AnyPlan; a card is on file if
// adm.NeedCard. A refused request therefore spends nothing. The decision
// is nil when the limit was not checked.
type Authenticator interface {
	Authenticate(ctx context.Context, key string, adm Admission) (Principal, *ratelimit.Decision, error)
}

// Admission is the limit the gate checks with the key, and the access the
// operation needs (a hit counts only for a request that may proceed).
type Admission struct {
	Bucket   string          // the bucket's prefix: the key's id follows it
	Limit    ratelimit.Check // the policy, at the gate's clock
	AnyPlan  bool            // the operation is open to every plan
	NeedCard bool            // the operation needs a card on file
}

// Codes of spec §5.
const (
	CodeUnauthorized = fault.CodeUnauthorized
	CodeInvalidKey   = "invalid_key"
)

// ErrInvalidKey is the answer for unknown and revoked keys.
var ErrInvalidKey = fault.New(fault.Unauthorized, CodeInvalidKey, "the API key is unknown or revoked")
