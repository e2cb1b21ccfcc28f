package httpapi

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// Access is an operation's place in the spec's access rules (§1, §5, §8).
// The public API's bearer middleware enforces it; the OpenAPI document
// shows it in each operation's description and as x-teamtext-access.
type Access struct {
	AnyPlan bool // works below Team Plus (opt-outs, webhook deletion)
	NoCard  bool // a write that needs no card on file (opt-outs, webhook deletion)
	Heavy   bool // counts toward the shared 10-per-minute pool
	Send    bool // counts toward the send limits (20/min, 200/h)
}

const accessKey = "access"

// WithAccess attaches an access policy to op.
func WithAccess(op huma.Operation, a Access) huma.Operation {
	if op.Metadata == nil {
		op.Metadata = map[string]any{}
	}
	op.Metadata[accessKey] = a
	return op
}

// AccessOf returns op's access policy (the zero policy if none was set).
func AccessOf(op *huma.Operation) Access {
	if op == nil {
		return Access{}
	}
	a, _ := op.Metadata[accessKey].(Access)
	return a
}

// IsWrite reports whether op changes things (and so needs a card on file
// unless exempt): every method but GET and HEAD.
func IsWrite(op *huma.Operation) bool {
	return op.Method != http.MethodGet && op.Method != http.MethodHead
}

// documentAccess is the public API's OnAddOperation hook: it states the
// access rules of each operation in its description and extension, and
// lists the 403 and 429 answers.
func documentAccess(_ *huma.OpenAPI, op *huma.Operation) {
	a := AccessOf(op)
	write := IsWrite(op)
	card := write && !a.NoCard
	limits := []string{"120 requests per minute per key"}
	if a.Heavy {
		limits = append(limits, "the shared heavy-call pool of 10 per minute per key")
	}
	if a.Send {
		limits = append(limits, "sends: 20 per minute and 200 per hour per key")
	}
	plans := "Team Plus and above (else 403 plan_required)"
	if a.AnyPlan {
		plans = "any plan"
	}
	cardText := "not required"
	if card {
		cardText = "required (a write; else 403 card_required)"
	} else if write {
		cardText = "not required (exempt write)"
	}
	op.Description = strings.TrimSpace(op.Description + fmt.Sprintf(
		"\n\n**Access.** Plans: %s. Card on file: %s. Limits: %s.", plans, cardText, strings.Join(limits, "; ")))
	if op.Extensions == nil {
		op.Extensions = map[string]any{}
	}
	op.Extensions["x-teamtext-access"] = map[string]any{
		"write": write, "any_plan": a.AnyPlan, "card_required": card, "heavy": a.Heavy, "send": a.Send,
	}
	for _, s := range []int{http.StatusForbidden, http.StatusTooManyRequests} {
		if _, ok := op.Responses[fmt.Sprint(s)]; !ok {
			op.Responses[fmt.Sprint(s)] = errorResponse(s)
		}
	}
}
