package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// Register is messaging's public route table (miniflux api.go style):
// every operation under /api/v1, one line each, with the handler method
// that serves it. Descriptions are constants in docs.go. The order is the
// order of registration before the table (templates, messages, scheduled,
// resend, inbound texts and the inbox, analytics).
func Register(api huma.API, svc *service.Service, in *inbound.Service) {
	h := &handler{svc: svc, inbound: in}
	tmpl, msgs, sched, inb := []string{"Templates"}, []string{"Messages"}, []string{"Scheduled"}, []string{"Inbound texts"}

	httpapi.Register(api, huma.Operation{OperationID: "list-templates", Method: http.MethodGet, Path: "/templates", Tags: tmpl, Summary: "List templates", Description: listTemplatesDoc}, h.listTemplates)
	httpapi.Register(api, huma.Operation{OperationID: "create-template", Method: http.MethodPost, Path: "/templates", Tags: tmpl, DefaultStatus: http.StatusCreated, Summary: "Create a template", Description: createTemplateDoc}, h.createTemplate, http.StatusConflict)
	httpapi.Register(api, huma.Operation{OperationID: "get-template", Method: http.MethodGet, Path: "/templates/{template_id}", Tags: tmpl, Summary: "Get a template", Description: getTemplateDoc}, h.getTemplate)
	httpapi.Register(api, huma.Operation{OperationID: "update-template", Method: http.MethodPatch, Path: "/templates/{template_id}", Tags: tmpl, Summary: "Change a template", Description: updateTemplateDoc}, h.updateTemplate, http.StatusForbidden, http.StatusConflict)
	httpapi.Register(api, huma.Operation{OperationID: "delete-template", Method: http.MethodDelete, Path: "/templates/{template_id}", Tags: tmpl, DefaultStatus: http.StatusNoContent, Summary: "Delete a template", Description: deleteTemplateDoc}, h.deleteTemplate, http.StatusForbidden)

	httpapi.Register(api, httpapi.WithAccess(huma.Operation{OperationID: "send-message", Method: http.MethodPost, Path: "/messages", Tags: msgs, DefaultStatus: http.StatusCreated, Summary: "Send a broadcast", Description: sendMessageDoc}, httpapi.Access{Send: true}), h.sendMessage, http.StatusConflict, http.StatusPaymentRequired, http.StatusNotFound)
	httpapi.Register(api, httpapi.WithAccess(huma.Operation{OperationID: "estimate-message", Method: http.MethodPost, Path: "/messages/estimate", Tags: msgs, Summary: "Estimate a broadcast", Description: estimateMessageDoc}, httpapi.Access{NoCard: true}), h.estimateMessage, http.StatusConflict, http.StatusPaymentRequired, http.StatusNotFound)
	httpapi.Register(api, huma.Operation{OperationID: "list-messages", Method: http.MethodGet, Path: "/messages", Tags: msgs, Summary: "List messages", Description: listMessagesDoc}, h.listMessages)
	httpapi.Register(api, huma.Operation{OperationID: "get-message", Method: http.MethodGet, Path: "/messages/{message_id}", Tags: msgs, Summary: "Get a message", Description: getMessageDoc}, h.getMessage)
	httpapi.Register(api, httpapi.WithAccess(huma.Operation{OperationID: "list-deliveries", Method: http.MethodGet, Path: "/messages/{message_id}/deliveries", Tags: msgs, Summary: "Delivery report", Description: listDeliveriesDoc}, httpapi.Access{Heavy: true}), h.listDeliveries)
	httpapi.Register(api, huma.Operation{OperationID: "list-scheduled", Method: http.MethodGet, Path: "/scheduled", Tags: sched, Summary: "List scheduled messages", Description: listScheduledDoc}, h.listScheduled)
	httpapi.Register(api, huma.Operation{OperationID: "cancel-scheduled", Method: http.MethodDelete, Path: "/scheduled/{scheduled_id}", Tags: sched, DefaultStatus: http.StatusNoContent, Summary: "Cancel a scheduled message", Description: cancelScheduledDoc}, h.cancelScheduled)

	httpapi.Register(api, httpapi.WithAccess(huma.Operation{OperationID: "resend-message", Method: http.MethodPost, Path: "/messages/{message_id}/resend", Tags: msgs, DefaultStatus: http.StatusCreated, Summary: "Resend a broadcast to its failed recipients", Description: resendMessageDoc}, httpapi.Access{Send: true}), h.resendMessage, http.StatusConflict, http.StatusPaymentRequired, http.StatusNotFound)

	httpapi.Register(api, huma.Operation{OperationID: "list-inbound-messages", Method: http.MethodGet, Path: "/inbound-messages", Tags: inb, Summary: "List inbound texts", Description: listInboundMessagesDoc}, h.listInboundMessages)
	httpapi.Register(api, huma.Operation{OperationID: "list-inbox", Method: http.MethodGet, Path: "/inbox", Tags: inb, Summary: "List the inbox", Description: listInboxDoc}, h.listInbox)
	httpapi.Register(api, huma.Operation{OperationID: "inbox-unread-count", Method: http.MethodGet, Path: "/inbox/unread-count", Tags: inb, Summary: "Count unread inbox texts", Description: inboxUnreadCountDoc}, h.inboxUnreadCount)
	httpapi.Register(api, huma.Operation{OperationID: "inbox-mark-read", Method: http.MethodPost, Path: "/inbox/{message_id}/read", Tags: inb, Summary: "Mark an inbox text read", Description: inboxMarkReadDoc}, h.inboxMarkRead)
	httpapi.Register(api, huma.Operation{OperationID: "inbox-read-all", Method: http.MethodPost, Path: "/inbox/read-all", Tags: inb, Summary: "Mark every inbox text read", Description: inboxReadAllDoc}, h.inboxReadAll)
	httpapi.Register(api, httpapi.WithAccess(huma.Operation{OperationID: "get-analytics", Method: http.MethodGet, Path: "/analytics", Tags: []string{"Analytics"}, Summary: "Get analytics totals", Description: getAnalyticsDoc}, httpapi.Access{Heavy: true}), h.getAnalytics)
}

// handler serves the public operations of the key's team: sends, reports,
// scheduled sends and templates (svc), inbound texts, the inbox and
// analytics (inbound).
type handler struct {
	svc     *service.Service
	inbound *inbound.Service
}

// teamOf is the key's team.
func teamOf(ctx context.Context) string { return auth.MustPrincipal(ctx).TeamID }

// senderOf is who sends through the key: its team, the key and the member
// who made it.
func senderOf(ctx context.Context) service.Sender {
	p := auth.MustPrincipal(ctx)
	return service.Sender{TeamID: p.TeamID, KeyID: p.KeyID, MemberID: p.MemberID, Source: "api"}
}
