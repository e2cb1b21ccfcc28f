package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/messaging/internal/accounts"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/simulator"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/modules/messaging/internal/settings"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// Register is messaging's route table (miniflux api.go style): every
// operation of the public API under /api/v1 (api) and of the admin API
// (admin), one line each, with the handler method that serves it. Descriptions are constants in docs.go. The order is the
// order of registration before the table (public: templates, messages,
// scheduled, resend, inbound texts and the inbox, analytics; admin:
// approvals, urgent templates, simulator, sending numbers, inbound).
func Register(api, admin huma.API, s Services) {
	h := &handler{svc: s.Send, simulated: s.Simulated, inbox: s.Inbox, replies: s.Replies, analytics: s.Analytics, numbers: s.Numbers,
		settings: s.Settings, keywords: s.Keywords, sim: s.Simulator, accounts: s.Accounts}
	tmpl, msgs, sched, inb := []string{"Templates"}, []string{"Messages"}, []string{"Scheduled"}, []string{"Inbound texts"}
	approvals, simTags, numbers, settingsTags := []string{"Approvals"}, []string{"Simulator"}, []string{"Sending numbers"}, []string{"Messaging settings"}

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
	httpapi.Register(api, httpapi.WithAccess(huma.Operation{OperationID: "list-responses", Method: http.MethodGet, Path: "/messages/{message_id}/responses", Tags: msgs, Summary: "A poll's answers", Description: listResponsesDoc}, httpapi.Access{Heavy: true}), h.listResponses)
	httpapi.Register(api, huma.Operation{OperationID: "list-scheduled", Method: http.MethodGet, Path: "/scheduled", Tags: sched, Summary: "List scheduled messages", Description: listScheduledDoc}, h.listScheduled)
	httpapi.Register(api, huma.Operation{OperationID: "cancel-scheduled", Method: http.MethodDelete, Path: "/scheduled/{scheduled_id}", Tags: sched, DefaultStatus: http.StatusNoContent, Summary: "Cancel a scheduled message", Description: cancelScheduledDoc}, h.cancelScheduled)

	httpapi.Register(api, httpapi.WithAccess(huma.Operation{OperationID: "resend-message", Method: http.MethodPost, Path: "/messages/{message_id}/resend", Tags: msgs, DefaultStatus: http.StatusCreated, Summary: "Resend a broadcast to its failed recipients", Description: resendMessageDoc}, httpapi.Access{Send: true}), h.resendMessage, http.StatusConflict, http.StatusPaymentRequired, http.StatusNotFound)

	httpapi.Register(api, huma.Operation{OperationID: "list-inbound-messages", Method: http.MethodGet, Path: "/inbound-messages", Tags: inb, Summary: "List inbound texts", Description: listInboundMessagesDoc}, h.listInboundMessages)
	httpapi.Register(api, huma.Operation{OperationID: "list-inbox", Method: http.MethodGet, Path: "/inbox", Tags: inb, Summary: "List the inbox", Description: listInboxDoc}, h.listInbox)
	httpapi.Register(api, huma.Operation{OperationID: "inbox-unread-count", Method: http.MethodGet, Path: "/inbox/unread-count", Tags: inb, Summary: "Count unread inbox texts", Description: inboxUnreadCountDoc}, h.inboxUnreadCount)
	httpapi.Register(api, huma.Operation{OperationID: "inbox-mark-read", Method: http.MethodPost, Path: "/inbox/{message_id}/read", Tags: inb, Summary: "Mark an inbox text read", Description: inboxMarkReadDoc}, h.inboxMarkRead)
	httpapi.Register(api, huma.Operation{OperationID: "inbox-read-all", Method: http.MethodPost, Path: "/inbox/read-all", Tags: inb, Summary: "Mark every inbox text read", Description: inboxReadAllDoc}, h.inboxReadAll)
	httpapi.Register(api, httpapi.WithAccess(huma.Operation{OperationID: "get-analytics", Method: http.MethodGet, Path: "/analytics", Tags: []string{"Analytics"}, Summary: "Get analytics totals", Description: getAnalyticsDoc}, httpapi.Access{Heavy: true}), h.getAnalytics)

	// the admin API (the dashboard): the team is the path's
	httpapi.Register(admin, huma.Operation{OperationID: "admin-list-approvals", Method: http.MethodGet, Path: "/teams/{team_id}/approvals", Tags: approvals, Summary: "List sends awaiting approval", Description: adminListApprovalsDoc}, h.adminListApprovals)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-approve-message", Method: http.MethodPost, Path: "/teams/{team_id}/approvals/{message_id}/approve", Tags: approvals, Summary: "approve a send", Description: adminApproveMessageDoc}, h.adminApproveMessage, http.StatusForbidden, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-reject-message", Method: http.MethodPost, Path: "/teams/{team_id}/approvals/{message_id}/reject", Tags: approvals, Summary: "reject a send", Description: adminRejectMessageDoc}, h.adminRejectMessage, http.StatusForbidden, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-create-template", Method: http.MethodPost, Path: "/teams/{team_id}/templates", Tags: tmpl, DefaultStatus: http.StatusCreated, Summary: "Create a template (urgent alerts allowed)", Description: adminCreateTemplateDoc}, h.adminCreateTemplate, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-simulator-outcomes", Method: http.MethodPut, Path: "/simulator/outcomes", Tags: simTags, Summary: "Set simulated outcomes", Description: adminSimulatorOutcomesDoc}, h.adminSimulatorOutcomes, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-simulator-get-profile", Method: http.MethodGet, Path: "/simulator/profile", Tags: simTags, Summary: "Read the simulator's profile", Description: adminSimulatorGetProfileDoc}, h.adminSimulatorGetProfile, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-simulator-set-profile", Method: http.MethodPut, Path: "/simulator/profile", Tags: simTags, Summary: "Set the simulator's profile", Description: adminSimulatorSetProfileDoc}, h.adminSimulatorSetProfile, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-simulator-outbox", Method: http.MethodGet, Path: "/simulator/outbox", Tags: simTags, Summary: "Texts handed to the simulator", Description: adminSimulatorOutboxDoc}, h.adminSimulatorOutbox, http.StatusConflict)

	httpapi.Register(admin, huma.Operation{OperationID: "admin-add-number", Method: http.MethodPost, Path: "/teams/{team_id}/numbers", Tags: numbers, DefaultStatus: http.StatusCreated, Summary: "Add a sending number", Description: adminAddNumberDoc}, h.adminAddNumber, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-list-numbers", Method: http.MethodGet, Path: "/teams/{team_id}/numbers", Tags: numbers, Summary: "List sending numbers", Description: adminListNumbersDoc}, h.adminListNumbers)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-get-number", Method: http.MethodGet, Path: "/teams/{team_id}/numbers/{number_id}", Tags: numbers, Summary: "Get a sending number", Description: adminGetNumberDoc}, h.adminGetNumber)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-update-number", Method: http.MethodPatch, Path: "/teams/{team_id}/numbers/{number_id}", Tags: numbers, Summary: "Change a sending number", Description: adminUpdateNumberDoc}, h.adminUpdateNumber, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-remove-number", Method: http.MethodDelete, Path: "/teams/{team_id}/numbers/{number_id}", Tags: numbers, DefaultStatus: http.StatusNoContent, Summary: "Remove a sending number", Description: adminRemoveNumberDoc}, h.adminRemoveNumber, http.StatusConflict)

	accts := []string{"Carrier accounts"}
	httpapi.Register(admin, huma.Operation{OperationID: "admin-create-carrier-account", Method: http.MethodPost, Path: "/carrier-accounts", Tags: accts, DefaultStatus: http.StatusCreated, Summary: "Add a carrier account", Description: adminCreateAccountDoc}, h.adminCreateAccount, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-list-carrier-accounts", Method: http.MethodGet, Path: "/carrier-accounts", Tags: accts, Summary: "List carrier accounts", Description: adminListAccountsDoc}, h.adminListAccounts)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-get-carrier-account", Method: http.MethodGet, Path: "/carrier-accounts/{account_id}", Tags: accts, Summary: "Get a carrier account", Description: adminGetAccountDoc}, h.adminGetAccount)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-update-carrier-account", Method: http.MethodPatch, Path: "/carrier-accounts/{account_id}", Tags: accts, Summary: "Change a carrier account", Description: adminUpdateAccountDoc}, h.adminUpdateAccount, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-delete-carrier-account", Method: http.MethodDelete, Path: "/carrier-accounts/{account_id}", Tags: accts, DefaultStatus: http.StatusNoContent, Summary: "Delete a carrier account", Description: adminDeleteAccountDoc}, h.adminDeleteAccount, http.StatusConflict)

	httpapi.Register(admin, huma.Operation{OperationID: "admin-simulator-inbound", Method: http.MethodPost, Path: "/simulator/inbound", Tags: simTags, DefaultStatus: http.StatusAccepted, Summary: "Someone texts a team number", Description: adminSimulatorInboundDoc}, h.adminSimulatorInbound, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-inbox-reply", Method: http.MethodPost, Path: "/teams/{team_id}/inbox/{message_id}/reply", Tags: []string{"Inbox"}, Summary: "Reply to an inbox text", Description: adminInboxReplyDoc}, h.adminInboxReply, http.StatusPaymentRequired, http.StatusForbidden, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-get-messaging-settings", Method: http.MethodGet, Path: "/teams/{team_id}/messaging-settings", Tags: settingsTags, Summary: "Get messaging settings", Description: adminGetMessagingSettingsDoc}, h.adminGetMessagingSettings)
	kw := []string{"Keywords"}
	httpapi.Register(admin, huma.Operation{OperationID: "admin-list-keywords", Method: http.MethodGet, Path: "/teams/{team_id}/keywords", Tags: kw, Summary: "List the team's keywords", Description: adminListKeywordsDoc}, h.adminListKeywords)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-create-keyword", Method: http.MethodPost, Path: "/teams/{team_id}/keywords", Tags: kw, DefaultStatus: http.StatusCreated, Summary: "Add a keyword", Description: adminCreateKeywordDoc}, h.adminCreateKeyword, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-get-keyword", Method: http.MethodGet, Path: "/teams/{team_id}/keywords/{keyword_id}", Tags: kw, Summary: "Get a keyword", Description: adminGetKeywordDoc}, h.adminGetKeyword)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-update-keyword", Method: http.MethodPatch, Path: "/teams/{team_id}/keywords/{keyword_id}", Tags: kw, Summary: "Change a keyword", Description: adminUpdateKeywordDoc}, h.adminUpdateKeyword, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-delete-keyword", Method: http.MethodDelete, Path: "/teams/{team_id}/keywords/{keyword_id}", Tags: kw, DefaultStatus: http.StatusNoContent, Summary: "Remove a keyword", Description: adminDeleteKeywordDoc}, h.adminDeleteKeyword)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-patch-messaging-settings", Method: http.MethodPatch, Path: "/teams/{team_id}/messaging-settings", Tags: settingsTags, Summary: "Change messaging settings", Description: adminPatchMessagingSettingsDoc}, h.adminPatchMessagingSettings)
}

// Services are what messaging's operations call.
type Services struct {
	Send *service.Service
	// Simulated receives the simulator's inbound texts; nil unless
	// CARRIER=simulator.
	Simulated *inbound.Simulated
	Inbox     *inbound.Inbox
	Replies   *inbound.Replies
	Analytics *inbound.Analytics
	Numbers   *outbound.Service
	Settings  *settings.Editor      // the messaging settings: HELP answer, quiet hours, failover
	Keywords  *inbound.TeamKeywords // the team's own keywords
	Simulator *simulator.Simulator  // nil unless CARRIER=simulator: its operations answer 409
	Accounts  *accounts.Service     // carrier accounts
}

// handler serves both APIs. The public handlers act on the key's team:
// sends, reports, scheduled sends and templates (svc), inbound texts and
// the inbox (inbox) and analytics. The admin handlers act on the path's
// team and add approvals, urgent templates, replies and settings
// (replies), sending numbers (numbers) and the carrier simulator (sim,
// its texts staged by inbound).
type handler struct {
	svc       *service.Service
	simulated *inbound.Simulated
	inbox     *inbound.Inbox
	replies   *inbound.Replies
	analytics *inbound.Analytics
	numbers   *outbound.Service
	settings  *settings.Editor
	keywords  *inbound.TeamKeywords
	sim       *simulator.Simulator
	accounts  *accounts.Service
}

// teamOf is the key's team.
func teamOf(ctx context.Context) string { return auth.MustPrincipal(ctx).TeamID }

// senderOf is who sends through the key: its team, the key and the member
// who made it.
func senderOf(ctx context.Context) service.Sender {
	p := auth.MustPrincipal(ctx)
	return service.Sender{TeamID: p.TeamID, KeyID: p.KeyID, MemberID: p.MemberID, Source: domain.SourceAPI}
}
