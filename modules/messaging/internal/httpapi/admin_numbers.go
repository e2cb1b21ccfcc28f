package httpapi

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// SendingNumber is one of a team's sending numbers.
type SendingNumber struct {
	ID                string     `json:"id"`
	TeamID            string     `json:"team_id"`
	Number            string     `json:"number" doc:"E.164, or a short code's 5 or 6 digits."`
	Kind              string     `json:"kind" enum:"long_code,toll_free,short_code"`
	Throughput        float64    `json:"throughput" doc:"SMS segments per second the number sends, across all nodes together."`
	ThroughputDefault bool       `json:"throughput_default" doc:"true when the number has no throughput of its own and follows TWILIO_RATE."`
	Primary           bool       `json:"primary" doc:"The team's own number (its number in the team record): it cannot be removed, nor its number changed here."`
	BacklogSegments   int64      `json:"backlog_segments" doc:"Segments planned on the number and not yet handed to the carrier."`
	CarrierAccountID  string     `json:"carrier_account_id" doc:"The carrier account the number sends through (cac_default: the environment's)."`
	NextHandover      *time.Time `json:"next_handover" doc:"When the number next hands texts to the carrier; null when nothing is planned."`
	PlannedUntil      *time.Time `json:"planned_until" doc:"When its latest planned text is due to reach the carrier; null if it never had one."`
	CreatedAt         time.Time  `json:"created_at"`
	UpdatedAt         time.Time  `json:"updated_at"`
}

func numberFrom(n outbound.Number) SendingNumber {
	out := SendingNumber{ID: n.ID, TeamID: n.TeamID, Number: n.Number, Kind: string(n.Kind), Throughput: float64(n.Schedule.Pace),
		ThroughputDefault: n.Throughput == nil, Primary: n.Primary, BacklogSegments: n.Backlog, CarrierAccountID: n.AccountID(),
		CreatedAt: n.CreatedAt, UpdatedAt: n.UpdatedAt}
	if !n.NextAt.IsZero() {
		t := n.NextAt
		out.NextHandover = &t
	}
	if !n.Schedule.LastAt.IsZero() {
		t := n.Schedule.LastAt
		out.PlannedUntil = &t
	}
	return out
}

// NumberBody is a sending number's fields in a request.
type NumberBody struct {
	Number           *string  `json:"number,omitempty" doc:"A US number in any common format (stored as E.164), or 5 or 6 digits for a short code. Required on create."`
	Kind             *string  `json:"kind,omitempty" enum:"long_code,toll_free,short_code" doc:"Default long_code."`
	Throughput       *float64 `json:"throughput,omitempty" doc:"SMS segments per second across all nodes, more than 0 and at most 1000. Default: TWILIO_RATE."`
	CarrierAccountID *string  `json:"carrier_account_id,omitempty" doc:"The carrier account the number sends through (GET /admin/v1/carrier-accounts); default: the default account. An unknown account is 400 invalid_request."`
}

func (b NumberBody) input() outbound.NumberInput {
	return outbound.NumberInput{Number: b.Number, Kind: b.Kind, Throughput: b.Throughput, CarrierAccountID: b.CarrierAccountID}
}

type numberPath struct {
	TeamID   string `path:"team_id"`
	NumberID string `path:"number_id"`
}

// adminAddNumber serves admin-add-number.
func (h *handler) adminAddNumber(ctx context.Context, in *struct {
	TeamID string `path:"team_id"`
	Body   NumberBody
}) (*httpapi.DataOutput[SendingNumber], error) {
	n, err := h.numbers.AddNumber(ctx, in.TeamID, in.Body.input())
	if err != nil {
		return nil, err
	}
	return httpapi.Data(numberFrom(n)), nil
}

// adminListNumbers serves admin-list-numbers.
func (h *handler) adminListNumbers(ctx context.Context, in *struct {
	TeamID string `path:"team_id"`
	httpapi.PageParams
}) (*httpapi.ListOutput[SendingNumber], error) {
	ns, err := h.numbers.Numbers(ctx, in.TeamID)
	if err != nil {
		return nil, err
	}
	out := make([]SendingNumber, 0, len(ns))
	for _, n := range ns[min(in.Offset, len(ns)):min(in.Offset+in.Limit+1, len(ns))] {
		out = append(out, numberFrom(n))
	}
	return httpapi.List(in.PageParams, out), nil
}

// adminGetNumber serves admin-get-number.
func (h *handler) adminGetNumber(ctx context.Context, in *numberPath) (*httpapi.DataOutput[SendingNumber], error) {
	n, err := h.numbers.Number(ctx, in.TeamID, in.NumberID)
	if err != nil {
		return nil, err
	}
	return httpapi.Data(numberFrom(n)), nil
}

// adminUpdateNumber serves admin-update-number.
func (h *handler) adminUpdateNumber(ctx context.Context, in *struct {
	TeamID   string `path:"team_id"`
	NumberID string `path:"number_id"`
	Body     NumberBody
}) (*httpapi.DataOutput[SendingNumber], error) {
	n, err := h.numbers.UpdateNumber(ctx, in.TeamID, in.NumberID, in.Body.input())
	if err != nil {
		return nil, err
	}
	return httpapi.Data(numberFrom(n)), nil
}

// adminRemoveNumber serves admin-remove-number.
func (h *handler) adminRemoveNumber(ctx context.Context, in *numberPath) (*struct{}, error) {
	return nil, h.numbers.RemoveNumber(ctx, in.TeamID, in.NumberID)
}
