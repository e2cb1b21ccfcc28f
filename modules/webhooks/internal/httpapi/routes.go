// Package httpapi is the webhooks module's driving adapter: the public
// API's operations under /api/v1 (the key's team) and the admin API's
// under /admin/v1 (the dashboard's side: dashboard-made webhooks, turning
// one back on, test events, the attempts log and the e-mail notices), in
// one route table. The wire shapes are in view and adminview, the
// descriptions in docs.go.
package httpapi

import (
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/webhooks/internal/service"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// Register is the webhooks module's route table: every operation of the
// public API and of the admin API, one line each, with the handler method
// that serves it.
func Register(public, admin huma.API, svc *service.Service) {
	h := &handler{svc: svc}
	tags := []string{"Webhooks"}
	get, post, patch, del := http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete
	forbidden, conflict, unavailable := http.StatusForbidden, http.StatusConflict, http.StatusServiceUnavailable

	httpapi.Register(public, huma.Operation{OperationID: "list-webhooks", Method: get, Path: "/webhooks", Tags: tags,
		Summary: "List webhooks", Description: listDoc}, h.list)
	httpapi.Register(public, huma.Operation{OperationID: "create-webhook", Method: post, Path: "/webhooks", Tags: tags,
		DefaultStatus: http.StatusCreated, Summary: "Create a webhook", Description: createDoc}, h.create, forbidden, conflict, unavailable)
	httpapi.Register(public, huma.Operation{OperationID: "rotate-webhook-secret", Method: post, Path: "/webhooks/{webhook_id}/rotate-secret", Tags: tags,
		Summary: "Rotate a webhook's signing secret", Description: rotatePublicDoc}, h.rotate, forbidden)
	httpapi.Register(public, huma.Operation{OperationID: "update-webhook", Method: patch, Path: "/webhooks/{webhook_id}", Tags: tags,
		Summary: "Change a webhook's throttle", Description: throttlePublicDoc}, h.throttle, forbidden)
	httpapi.Register(public, huma.Operation{OperationID: "list-webhook-deliveries", Method: get, Path: "/webhooks/{webhook_id}/deliveries", Tags: tags,
		Summary: "List a webhook's deliveries", Description: listDeliveriesDoc}, h.deliveries)
	httpapi.Register(public, huma.Operation{OperationID: "retry-webhook-delivery", Method: post, Path: "/webhooks/{webhook_id}/deliveries/{delivery_id}/retry", Tags: tags,
		DefaultStatus: http.StatusAccepted, Summary: "Send a delivery again", Description: retryPublicDoc}, h.retry, forbidden, conflict)
	httpapi.Register(public, huma.Operation{OperationID: "recover-webhook-deliveries", Method: post, Path: "/webhooks/{webhook_id}/recover", Tags: tags,
		DefaultStatus: http.StatusAccepted, Summary: "Recover undelivered events", Description: recoverPublicDoc}, h.recover, forbidden, conflict)
	httpapi.Register(public, httpapi.WithAccess(huma.Operation{OperationID: "delete-webhook", Method: del, Path: "/webhooks/{webhook_id}", Tags: tags,
		Summary: "Delete a webhook", Description: deleteDoc}, httpapi.Access{AnyPlan: true, NoCard: true}), h.delete)

	httpapi.Register(admin, huma.Operation{OperationID: "admin-list-webhooks", Method: get, Path: "/teams/{team_id}/webhooks", Tags: tags,
		Summary: "List a team's webhooks", Description: adminListDoc}, h.adminList)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-create-webhook", Method: post, Path: "/teams/{team_id}/webhooks", Tags: tags,
		DefaultStatus: http.StatusCreated, Summary: "Create a dashboard-made webhook", Description: adminCreateDoc}, h.adminCreate, forbidden, conflict, unavailable)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-get-webhook", Method: get, Path: "/teams/{team_id}/webhooks/{webhook_id}", Tags: tags,
		Summary: "Get a webhook", Description: adminGetDoc}, h.adminGet)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-delete-webhook", Method: del, Path: "/teams/{team_id}/webhooks/{webhook_id}", Tags: tags,
		Summary: "Delete a webhook", Description: adminDeleteDoc}, h.adminDelete)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-enable-webhook", Method: post, Path: "/teams/{team_id}/webhooks/{webhook_id}/enable", Tags: tags,
		Summary: "Turn a webhook on", Description: adminEnableDoc}, h.adminEnable, forbidden)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-rotate-webhook-secret", Method: post, Path: "/teams/{team_id}/webhooks/{webhook_id}/rotate-secret", Tags: tags,
		Summary: "Rotate a webhook's signing secret", Description: adminRotateDoc}, h.adminRotate, forbidden)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-test-webhook", Method: post, Path: "/teams/{team_id}/webhooks/{webhook_id}/test", Tags: tags,
		Summary: "Send a test event", Description: adminTestDoc}, h.adminTest, conflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-list-webhook-attempts", Method: get, Path: "/teams/{team_id}/webhooks/{webhook_id}/attempts", Tags: tags,
		Summary: "List delivery attempts", Description: adminAttemptsDoc}, h.adminAttempts)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-update-webhook", Method: patch, Path: "/teams/{team_id}/webhooks/{webhook_id}", Tags: tags,
		Summary: "Change a webhook's throttle", Description: throttleChangeDoc}, h.adminThrottle)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-list-webhook-deliveries", Method: get, Path: "/teams/{team_id}/webhooks/{webhook_id}/deliveries", Tags: tags,
		Summary: "List a webhook's deliveries", Description: listDeliveriesDoc}, h.adminDeliveries)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-retry-webhook-delivery", Method: post, Path: "/teams/{team_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry", Tags: tags,
		DefaultStatus: http.StatusAccepted, Summary: "Send a delivery again", Description: retryDoc}, h.adminRetry, conflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-recover-webhook-deliveries", Method: post, Path: "/teams/{team_id}/webhooks/{webhook_id}/recover", Tags: tags,
		DefaultStatus: http.StatusAccepted, Summary: "Recover undelivered events", Description: recoverDoc}, h.adminRecover, conflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-list-notifications", Method: get, Path: "/teams/{team_id}/notifications", Tags: []string{"Notifications"},
		Summary: "List e-mail notices", Description: adminNotificationsDoc}, h.adminNotifications)
}
