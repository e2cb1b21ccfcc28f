package httpapi

// This file is messaging's part of the admin API (the dashboard): approvals, urgent
// templates and the carrier simulator.

import (
	"context"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/simulator"
	"github.com/teamtext/teamtext/modules/messaging/internal/httpapi/view"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/httpapi"
	"github.com/teamtext/teamtext/platform/phone"
)

type decision struct {
	TeamID    string `path:"team_id"`
	MessageID string `path:"message_id"`
	Body      struct {
		MemberID string `json:"member_id" doc:"The approver: a head coach or team director."`
	}
}

// adminApproveMessage serves admin-approve-message.
func (h *handler) adminApproveMessage(ctx context.Context, in *decision) (*httpapi.DataOutput[view.Message], error) {
	return h.decide(ctx, in, true)
}

// adminRejectMessage serves admin-reject-message.
func (h *handler) adminRejectMessage(ctx context.Context, in *decision) (*httpapi.DataOutput[view.Message], error) {
	return h.decide(ctx, in, false)
}

// decide approves or rejects a send awaiting approval and answers with the
// message as it is now.
func (h *handler) decide(ctx context.Context, in *decision, approve bool) (*httpapi.DataOutput[view.Message], error) {
	m, err := h.svc.Decide(ctx, in.TeamID, in.MessageID, in.Body.MemberID, approve)
	if err != nil {
		return nil, err
	}
	v, err := h.svc.Message(ctx, in.TeamID, m.ID)
	if err != nil {
		return nil, err
	}
	return httpapi.Data(view.MessageFrom(v)), nil
}

// adminListApprovals serves admin-list-approvals.
func (h *handler) adminListApprovals(ctx context.Context, in *struct {
	TeamID string `path:"team_id"`
	httpapi.PageParams
}) (*httpapi.ListOutput[view.Message], error) {
	return httpapi.ListOf(in.PageParams, view.MessageFrom)(h.svc.Approvals(ctx, in.TeamID, in.Limit, in.Offset))
}

// adminCreateTemplate serves admin-create-template.
func (h *handler) adminCreateTemplate(ctx context.Context, in *struct {
	TeamID string `path:"team_id"`
	Body   struct {
		Name        string `json:"name"`
		Body        string `json:"body"`
		MessageType string `json:"message_type,omitempty"`
	}
}) (*httpapi.DataOutput[view.Template], error) {
	t, _, err := h.svc.CreateTemplate(ctx, in.TeamID, in.Body.Name, in.Body.Body, in.Body.MessageType, true)
	if err != nil {
		return nil, err
	}
	return httpapi.Data(view.TemplateFrom(t)), nil
}

// adminSimulatorOutcomes serves admin-simulator-outcomes.
func (h *handler) adminSimulatorOutcomes(ctx context.Context, in *struct{ Body simulator.Outcomes }) (*httpapi.DataOutput[simulator.Outcomes], error) {
	if h.sim == nil {
		return nil, fault.New(fault.Conflict, fault.CodeConflict, "the carrier is not the simulator")
	}
	for n, o := range in.Body.Numbers {
		if !simulator.ValidOutcome(o) {
			return nil, fault.Invalidf("numbers[%s] must be delivered, failed, unconfirmed, refused, unreachable, landline or filtered", phone.Mask(n))
		}
	}
	if err := h.sim.SetOutcomes(ctx, in.Body); err != nil {
		return nil, err
	}
	return httpapi.Data(in.Body), nil
}

// adminSimulatorGetProfile serves admin-simulator-get-profile.
func (h *handler) adminSimulatorGetProfile(ctx context.Context, _ *struct{}) (*httpapi.DataOutput[simulator.Profile], error) {
	if h.sim == nil {
		return nil, fault.New(fault.Conflict, fault.CodeConflict, "the carrier is not the simulator")
	}
	p, err := h.sim.CurrentProfile(ctx)
	if err != nil {
		return nil, err
	}
	return httpapi.Data(p), nil
}

// adminSimulatorSetProfile serves admin-simulator-set-profile.
func (h *handler) adminSimulatorSetProfile(ctx context.Context, in *struct{ Body simulator.ProfileInput }) (*httpapi.DataOutput[simulator.Profile], error) {
	if h.sim == nil {
		return nil, fault.New(fault.Conflict, fault.CodeConflict, "the carrier is not the simulator")
	}
	p, ok := in.Body.Profile()
	if !ok {
		return nil, fault.Invalidf("report_latency_max_ms must be at least report_latency_min_ms")
	}
	if err := h.sim.SetProfile(ctx, p); err != nil {
		return nil, err
	}
	return httpapi.Data(p), nil
}

// adminSimulatorOutbox serves admin-simulator-outbox.
func (h *handler) adminSimulatorOutbox(ctx context.Context, in *struct {
	TeamID string `query:"team_id"`
	httpapi.PageParams
}) (*httpapi.ListOutput[simulator.OutboxEntry], error) {
	if h.sim == nil {
		return nil, fault.New(fault.Conflict, fault.CodeConflict, "the carrier is not the simulator")
	}
	es, err := h.sim.Outbox(ctx, in.TeamID, in.Limit, in.Offset)
	if err != nil {
		return nil, err
	}
	return httpapi.List(in.PageParams, es), nil
}
