// Package admin is messaging's part of the admin API: approvals, urgent
// templates and the carrier simulator.
package admin

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/simulator"
	msghttp "github.com/teamtext/teamtext/modules/messaging/internal/httpapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
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

// Register adds messaging's admin operations; sim is nil unless CARRIER=simulator.
func Register(api huma.API, svc *service.Service, sim *simulator.Simulator) {
	tags := []string{"Approvals"}
	httpapi.Register(api, huma.Operation{
		OperationID: "admin-list-approvals", Method: http.MethodGet, Path: "/teams/{team_id}/approvals", Tags: tags,
		Summary: "List sends awaiting approval", Description: "Messages in pending_approval, oldest first.",
	}, func(ctx context.Context, in *struct {
		TeamID string `path:"team_id"`
		httpapi.PageParams
	}) (*httpapi.ListOutput[msghttp.Message], error) {
		ms, err := svc.Approvals(ctx, in.TeamID, in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		out := make([]msghttp.Message, len(ms))
		for i := range ms {
			out[i] = msghttp.MessageFrom(&ms[i])
		}
		return httpapi.List(in.PageParams, out), nil
	})
	for _, d := range []struct {
		verb    string
		approve bool
		doc     string
	}{{"approve", true, "Approves and sends: recipients are resolved now."}, {"reject", false, "Rejects: the message is never sent."}} {
		httpapi.Register(api, huma.Operation{
			OperationID: "admin-" + d.verb + "-message", Method: http.MethodPost, Path: "/teams/{team_id}/approvals/{message_id}/" + d.verb, Tags: tags,
			Summary: d.verb + " a send", Description: d.doc + " member_id must be a head coach or team director (403 forbidden); 409 conflict if the message is not pending_approval.",
		}, func(ctx context.Context, in *decision) (*httpapi.DataOutput[msghttp.Message], error) {
			m, err := svc.Decide(ctx, in.TeamID, in.MessageID, in.Body.MemberID, d.approve)
			if err != nil {
				return nil, err
			}
			v, err := svc.Message(ctx, in.TeamID, m.ID)
			if err != nil {
				return nil, err
			}
			return httpapi.Data(msghttp.MessageFrom(v)), nil
		}, http.StatusForbidden, http.StatusConflict)
	}

	httpapi.Register(api, huma.Operation{
		OperationID: "admin-create-template", Method: http.MethodPost, Path: "/teams/{team_id}/templates", Tags: []string{"Templates"}, DefaultStatus: http.StatusCreated,
		Summary: "Create a template (urgent alerts allowed)", Description: "Like the API's POST /templates, but message_type may be urgent_alert.",
	}, func(ctx context.Context, in *struct {
		TeamID string `path:"team_id"`
		Body   struct {
			Name        string `json:"name"`
			Body        string `json:"body"`
			MessageType string `json:"message_type,omitempty"`
		}
	}) (*httpapi.DataOutput[msghttp.Template], error) {
		t, _, err := svc.CreateTemplate(ctx, in.TeamID, in.Body.Name, in.Body.Body, in.Body.MessageType, true)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(msghttp.TemplateFrom(t)), nil
	}, http.StatusConflict)

	stags := []string{"Simulator"}
	httpapi.Register(api, huma.Operation{
		OperationID: "admin-simulator-outcomes", Method: http.MethodPut, Path: "/simulator/outcomes", Tags: stags,
		Summary: "Set simulated outcomes",
		Description: "Carrier simulator only (409 conflict otherwise). default applies to numbers not listed; numbers and error_code are optional. " +
			"delivered: a delivered report; failed: a failed report (error_code, default 30003); unconfirmed: no final report at all. " +
			"Additions: refused makes the carrier refuse the text at once, as for an invalid number (the delivery fails with error_code, " +
			"default 21211, and carrier_status rejected); unreachable, landline and filtered fail with Twilio's codes 30003, 30006 and 30007. " +
			"An error_code given applies to every failing outcome.",
	}, func(ctx context.Context, in *struct{ Body simulator.Outcomes }) (*httpapi.DataOutput[simulator.Outcomes], error) {
		if sim == nil {
			return nil, fault.New(fault.Conflict, fault.CodeConflict, "the carrier is not the simulator")
		}
		for n, o := range in.Body.Numbers {
			if !simulator.ValidOutcome(o) {
				return nil, fault.Invalidf("numbers[%s] must be delivered, failed, unconfirmed, refused, unreachable, landline or filtered", phone.Mask(n))
			}
		}
		if err := sim.SetOutcomes(ctx, in.Body); err != nil {
			return nil, err
		}
		return httpapi.Data(in.Body), nil
	}, http.StatusConflict)
	httpapi.Register(api, huma.Operation{
		OperationID: "admin-simulator-get-profile", Method: http.MethodGet, Path: "/simulator/profile", Tags: stags,
		Summary: "Read the simulator's profile", Description: "Carrier simulator only (409 conflict otherwise). The profile in force on every node.",
	}, func(ctx context.Context, _ *struct{}) (*httpapi.DataOutput[simulator.Profile], error) {
		if sim == nil {
			return nil, fault.New(fault.Conflict, fault.CodeConflict, "the carrier is not the simulator")
		}
		p, err := sim.CurrentProfile(ctx)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(p), nil
	}, http.StatusConflict)
	httpapi.Register(api, huma.Operation{
		OperationID: "admin-simulator-set-profile", Method: http.MethodPut, Path: "/simulator/profile", Tags: stags,
		Summary: "Set the simulator's profile",
		Description: "Carrier simulator only (409 conflict otherwise); every node follows it. instant: texts are taken and reported at once and " +
			"numbers are not paced. realistic: each sending number's texts are paced at its throughput and go through a carrier queue that " +
			"sends at that throughput (a text that would wait longer than max_queue_seconds fails with 30001); status reports arrive " +
			"report_latency_min_ms to report_latency_max_ms after a text leaves the queue, duplicate_rate of them twice and reorder_rate of " +
			"texts with their 'sent' report after the final one; a recipient who texted STOP to a number is refused by the carrier (21610) " +
			"until START. Fields left out take their defaults. Texts already planned keep their plan.",
	}, func(ctx context.Context, in *struct{ Body simulator.ProfileInput }) (*httpapi.DataOutput[simulator.Profile], error) {
		if sim == nil {
			return nil, fault.New(fault.Conflict, fault.CodeConflict, "the carrier is not the simulator")
		}
		p, ok := in.Body.Profile()
		if !ok {
			return nil, fault.Invalidf("report_latency_max_ms must be at least report_latency_min_ms")
		}
		if err := sim.SetProfile(ctx, p); err != nil {
			return nil, err
		}
		return httpapi.Data(p), nil
	}, http.StatusConflict)
	httpapi.Register(api, huma.Operation{
		OperationID: "admin-simulator-outbox", Method: http.MethodGet, Path: "/simulator/outbox", Tags: stags,
		Summary: "Texts handed to the simulator", Description: "Oldest first, optionally for one team.",
	}, func(ctx context.Context, in *struct {
		TeamID string `query:"team_id"`
		httpapi.PageParams
	}) (*httpapi.ListOutput[simulator.OutboxEntry], error) {
		if sim == nil {
			return nil, fault.New(fault.Conflict, fault.CodeConflict, "the carrier is not the simulator")
		}
		es, err := sim.Outbox(ctx, in.TeamID, in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		return httpapi.List(in.PageParams, es), nil
	}, http.StatusConflict)
}
