// Package billingapi is the billing module's contract: plans and what they
// include, and the account facts other modules gate on (card on file,
// payment state, trial). It has no dependencies on other modules.
package billingapi

import (
	"context"
	"strings"
)

// Plan is a team's subscription plan, monthly or "_season".
type Plan string

// The plans of ADMIN-API.md.
const (
	PlanFree         Plan = "free"
	PlanTeam         Plan = "team"
	PlanTeamPlus     Plan = "team_plus"
	PlanOrganization Plan = "organization"
	PlanBusiness     Plan = "business"
)

// Tier orders plans regardless of billing period: free 0 … business 4; -1 if unknown.
func (p Plan) Tier() int {
	switch Plan(strings.TrimSuffix(string(p), "_season")) {
	case PlanFree:
		return 0
	case PlanTeam:
		return 1
	case PlanTeamPlus:
		return 2
	case PlanOrganization:
		return 3
	case PlanBusiness:
		return 4
	}
	return -1
}

// CreditsIncluded is the plan's monthly credit allowance (season plans
// include the same per month); 0 for an unknown plan. One table, mirrored
// in docs/design/decisions-not-shown.md; it is here, in the contract,
// because what a Standing says of it is a fact other modules read.
func (p Plan) CreditsIncluded() int {
	if t := p.Tier(); t >= 0 {
		return [...]int{100, 1000, 5000, 25000, 100000}[t] // by Tier: free … business
	}
	return 0
}

// Valid reports whether p is one of the ten plan names.
func (p Plan) Valid() bool { return p.Tier() >= 0 }

// IncludesAPI reports whether the plan includes the API and webhooks (Team Plus and above).
func (p Plan) IncludesAPI() bool { return p.Tier() >= PlanTeamPlus.Tier() }

// Plans lists the ten plan names: each monthly plan, then its "_season".
func Plans() []Plan {
	monthly := []Plan{PlanFree, PlanTeam, PlanTeamPlus, PlanOrganization, PlanBusiness}
	out := make([]Plan, 0, 2*len(monthly))
	for _, p := range monthly {
		out = append(out, p, p+"_season")
	}
	return out
}

// APIPlans lists the plans that include the API (IncludesAPI), for a
// statement that checks a plan where the rule cannot run in Go.
func APIPlans() []string {
	var out []string
	for _, p := range Plans() {
		if p.IncludesAPI() {
			out = append(out, string(p))
		}
	}
	return out
}

// Payment states.
const (
	PaymentOK      = "ok"
	PaymentOverdue = "overdue"
)

// Account is a team's billing facts: its standing and this period's
// credit figures.
type Account struct {
	Standing
	CreditsUsed int // this period (UTC calendar month), trial sends excluded
	TrialUsed   int // credits drawn from the trial allowance so far
}

// TrialRemaining is what a trial team may still send.
func (a Account) TrialRemaining() int { return max(0, a.TrialCredits-a.TrialUsed) }

// Standing is a team's account without its credit figures: what one
// indexed row holds, and all the gates read (plan, card on file, payment
// state, trial). Unlike the Account that Status returns, it has no field
// left zero for want of a read.
type Standing struct {
	TeamID          string
	Plan            Plan
	CardOnFile      bool
	PaymentState    string
	Trial           bool
	TrialCredits    int
	CreditsIncluded int // the plan's monthly allowance
}

// Account is s as Status answers it: CreditsUsed and TrialUsed zero.
func (s Standing) Account() Account { return Account{Standing: s} }

// Standings reads accounts' standings for hot paths (every request's plan
// and card check, every published event). Billing provides it beside
// Accounts; new callers use it rather than Status, whose Account leaves
// the credit figures zero.
type Standings interface {
	Standing(ctx context.Context, teamID string) (Standing, error)
	// Standings is Standing for several teams in one statement; teams
	// with no account are absent from the map.
	Standings(ctx context.Context, teamIDs []string) (map[string]Standing, error)
}

// Settings open an account (team creation).
type Settings struct {
	Plan         Plan
	CardOnFile   bool
	Trial        bool
	TrialCredits int
}

// Patch changes an account; nil fields are left alone.
type Patch struct {
	Plan         *Plan
	CardOnFile   *bool
	PaymentState *string
	Trial        *bool
	TrialCredits *int
}

// Accounts is billing's port for the other modules. Writes join the
// caller's transaction (carried by ctx).
type Accounts interface {
	Open(ctx context.Context, teamID string, s Settings) error
	Update(ctx context.Context, teamID string, p Patch) error
	Get(ctx context.Context, teamID string) (Account, error)
	// Status is Get without the credit figures (CreditsUsed and TrialUsed
	// are zero): one indexed row read, for hot paths (every request's plan
	// and card check, every published event). Standings.Standing reads the
	// same in a type without those fields.
	Status(ctx context.Context, teamID string) (Account, error)
	// Statuses is Status for several teams in one statement; teams with
	// no account are absent from the map.
	Statuses(ctx context.Context, teamIDs []string) (map[string]Account, error)
	// Consume records credits for one send (ref: the message id) in the
	// caller's transaction. It locks the account, so concurrent sends are
	// serialised: a trial team can never go below zero (402 trial_limit).
	// Paid plans may go over their allowance (overage is reported, not refused).
	Consume(ctx context.Context, teamID, ref string, credits int) error
	// AccessSQL is billing's part of the API gate's one statement: a
	// sub-select over billing's own tables giving, for the team whose id is
	// the SQL expression teamID, one row with the columns plan (text),
	// card_on_file, payment_state, trial and trial_credits (integer). The
	// caller joins it LATERAL, so the tables stay billing's alone.
	AccessSQL(teamID string) string
	// WithCredits fills acc's credit figures (CreditsUsed, TrialUsed,
	// CreditsIncluded) for an account read through AccessSQL: one statement.
	WithCredits(ctx context.Context, acc Account) (Account, error)
}

// Billing's refusals of a send (spec §7), declared here only.
const (
	// CodePaymentRequired: the team's payment is overdue, or it has no
	// plan that may send.
	CodePaymentRequired = "payment_required"
	// CodeTrialLimit: a trial send exceeds the remaining trial credits.
	CodeTrialLimit = "trial_limit"
)

// PaymentListener is told, in the changing transaction, when an overdue
// renewal is paid (payment_state overdue -> ok). Messaging releases the
// inbound texts it held. Implementations join fx group "payment_recovered".
type PaymentListener interface {
	OnPaymentRecovered(ctx context.Context, teamID string) error
}
