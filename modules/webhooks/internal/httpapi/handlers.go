package httpapi

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/modules/webhooks/internal/httpapi/adminview"
	"github.com/teamtext/teamtext/modules/webhooks/internal/httpapi/view"
	"github.com/teamtext/teamtext/modules/webhooks/internal/service"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// handler serves both APIs: the public handlers act on the key's team for
// the key's creator, the admin ones on the path's team, for the body's
// member_id or, where the operation has none, as the operator. The rules
// (who may, what is valid) are the service's.
type handler struct {
	svc *service.Service
}

// webhookPath names one webhook of the key's team.
type webhookPath struct {
	WebhookID string `path:"webhook_id" doc:"Webhook id."`
}

// deliveryPath names one delivery of a webhook of the key's team.
type deliveryPath struct {
	WebhookID  string `path:"webhook_id" doc:"Webhook id."`
	DeliveryID string `path:"delivery_id" doc:"Delivery id (X-Service-Delivery)."`
}

// teamWebhookPath names one webhook of a team (admin).
type teamWebhookPath struct {
	TeamID    string `path:"team_id"`
	WebhookID string `path:"webhook_id"`
}

// withRetryAfter adds Retry-After to a dns_busy answer.
func withRetryAfter(err error) error {
	if f, ok := fault.As(err); ok && f.Code == domain.CodeDNSBusy {
		return httpapi.FromFault(f).WithHeader("Retry-After", "60")
	}
	return err
}

// one renders one result with render, or passes the error on.
func one[T, V any](render func(*T) V) func(*T, error) (*httpapi.DataOutput[V], error) {
	return func(v *T, err error) (*httpapi.DataOutput[V], error) {
		if err != nil {
			return nil, err
		}
		return httpapi.Data(render(v)), nil
	}
}

// page renders a page with render, or passes the error on.
func page[T, V any](p httpapi.PageParams, vs []T, err error, render func(*T) V) (*httpapi.ListOutput[V], error) {
	if err != nil {
		return nil, err
	}
	out := make([]V, len(vs))
	for i := range vs {
		out[i] = render(&vs[i])
	}
	return httpapi.List(p, out), nil
}

var (
	webhook        = one(view.From)
	adminWebhook   = one(adminview.WebhookFrom)
	delivery       = one(view.DeliveryFrom)
	createdWebhook = func(w *domain.Webhook, secret string) view.CreatedWebhook {
		return view.CreatedWebhook{Webhook: view.From(w), Secret: secret}
	}
	adminCreated = func(w *domain.Webhook, secret string) adminview.CreatedWebhook {
		return adminview.CreatedWebhook{Webhook: adminview.WebhookFrom(w), Secret: secret}
	}
)

// The public API: the key's team, the key's creator.

func (h *handler) list(ctx context.Context, in *struct{ httpapi.PageParams }) (*httpapi.ListOutput[view.Webhook], error) {
	ws, err := h.svc.Webhooks(ctx, auth.MustPrincipal(ctx).TeamID, in.Limit, in.Offset)
	return page(in.PageParams, ws, err, view.From)
}

func (h *handler) create(ctx context.Context, in *struct{ Body view.NewBody }) (*httpapi.DataOutput[view.CreatedWebhook], error) {
	p := auth.MustPrincipal(ctx)
	c, err := h.svc.Create(ctx, service.NewWebhook{TeamID: p.TeamID, URL: in.Body.URL, Events: in.Body.Events,
		Source: domain.SourceAPI, CreatedBy: p.MemberID, KeyID: p.KeyID, MaxPerSecond: in.Body.MaxPerSecond})
	if err != nil {
		return nil, withRetryAfter(err)
	}
	return httpapi.Data(createdWebhook(&c.Webhook, c.Secret)), nil
}

func (h *handler) rotate(ctx context.Context, in *webhookPath) (*httpapi.DataOutput[view.CreatedWebhook], error) {
	p := auth.MustPrincipal(ctx)
	r, err := h.svc.RotateSecret(ctx, p.TeamID, in.WebhookID, p.MemberID)
	if err != nil {
		return nil, err
	}
	return httpapi.Data(createdWebhook(&r.Webhook, r.Secret)), nil
}

func (h *handler) throttle(ctx context.Context, in *struct {
	WebhookID string `path:"webhook_id" doc:"Webhook id."`
	Body      view.WebhookThrottleBody
}) (*httpapi.DataOutput[view.Webhook], error) {
	p := auth.MustPrincipal(ctx)
	return webhook(h.svc.SetThrottle(ctx, p.TeamID, in.WebhookID, p.MemberID, in.Body.MaxPerSecond))
}

func (h *handler) deliveries(ctx context.Context, in *struct {
	WebhookID string `path:"webhook_id" doc:"Webhook id."`
	view.DeliveriesQuery
}) (*httpapi.ListOutput[view.WebhookDelivery], error) {
	ls, err := h.svc.Deliveries(ctx, auth.MustPrincipal(ctx).TeamID, in.WebhookID, in.Status, in.Limit, in.Offset)
	return page(in.PageParams, ls, err, view.DeliveryFrom)
}

func (h *handler) retry(ctx context.Context, in *deliveryPath) (*httpapi.DataOutput[view.WebhookDelivery], error) {
	p := auth.MustPrincipal(ctx)
	return delivery(h.svc.Retry(ctx, p.TeamID, in.WebhookID, in.DeliveryID, p.MemberID))
}

func (h *handler) recover(ctx context.Context, in *struct {
	WebhookID string `path:"webhook_id" doc:"Webhook id."`
	Body      view.WebhookRecoverBody
}) (*httpapi.DataOutput[view.WebhookRecovery], error) {
	p := auth.MustPrincipal(ctx)
	n, err := h.svc.Recover(ctx, p.TeamID, in.WebhookID, p.MemberID, in.Body.Since)
	return recovery(n, in.Body.Since, err)
}

// recovery renders what a recovery since since queued, or passes the error on.
func recovery(n int, since time.Time, err error) (*httpapi.DataOutput[view.WebhookRecovery], error) {
	if err != nil {
		return nil, err
	}
	return httpapi.Data(view.WebhookRecovery{Requeued: n, Since: since}), nil
}

func (h *handler) delete(ctx context.Context, in *webhookPath) (*httpapi.DataOutput[view.Webhook], error) {
	return webhook(h.svc.Delete(ctx, auth.MustPrincipal(ctx).TeamID, in.WebhookID))
}

// The admin API: the path's team; member_id from the body where the
// operation acts for a dashboard user, else the operator ("").

func (h *handler) adminList(ctx context.Context, in *struct {
	TeamID string `path:"team_id"`
	httpapi.PageParams
}) (*httpapi.ListOutput[adminview.Webhook], error) {
	ws, err := h.svc.Webhooks(ctx, in.TeamID, in.Limit, in.Offset)
	return page(in.PageParams, ws, err, adminview.WebhookFrom)
}

func (h *handler) adminCreate(ctx context.Context, in *struct {
	TeamID string `path:"team_id"`
	Body   struct {
		view.NewBody
		MemberID string `json:"member_id" doc:"The dashboard user creating it."`
	}
}) (*httpapi.DataOutput[adminview.CreatedWebhook], error) {
	c, err := h.svc.Create(ctx, service.NewWebhook{TeamID: in.TeamID, URL: in.Body.URL, Events: in.Body.Events,
		Source: domain.SourceDashboard, CreatedBy: in.Body.MemberID, MaxPerSecond: in.Body.MaxPerSecond})
	if err != nil {
		return nil, withRetryAfter(err)
	}
	return httpapi.Data(adminCreated(&c.Webhook, c.Secret)), nil
}

func (h *handler) adminGet(ctx context.Context, in *teamWebhookPath) (*httpapi.DataOutput[adminview.Webhook], error) {
	return adminWebhook(h.svc.Webhook(ctx, in.TeamID, in.WebhookID))
}

func (h *handler) adminDelete(ctx context.Context, in *teamWebhookPath) (*httpapi.DataOutput[adminview.Webhook], error) {
	return adminWebhook(h.svc.Delete(ctx, in.TeamID, in.WebhookID))
}

func (h *handler) adminEnable(ctx context.Context, in *struct {
	TeamID    string `path:"team_id"`
	WebhookID string `path:"webhook_id"`
	Body      struct {
		MemberID string `json:"member_id" doc:"The dashboard user turning it on; becomes its owner."`
	}
}) (*httpapi.DataOutput[adminview.Webhook], error) {
	return adminWebhook(h.svc.Enable(ctx, in.TeamID, in.WebhookID, in.Body.MemberID))
}

func (h *handler) adminRotate(ctx context.Context, in *struct {
	TeamID    string `path:"team_id"`
	WebhookID string `path:"webhook_id"`
	Body      struct {
		MemberID string `json:"member_id" doc:"The dashboard user rotating the secret."`
	}
}) (*httpapi.DataOutput[adminview.CreatedWebhook], error) {
	r, err := h.svc.RotateSecret(ctx, in.TeamID, in.WebhookID, in.Body.MemberID)
	if err != nil {
		return nil, err
	}
	return httpapi.Data(adminCreated(&r.Webhook, r.Secret)), nil
}

func (h *handler) adminTest(ctx context.Context, in *struct {
	TeamID    string `path:"team_id"`
	WebhookID string `path:"webhook_id"`
	Body      *struct {
		Message string `json:"message,omitempty" maxLength:"500" doc:"The data.message text; a default greeting when empty."`
	}
}) (*httpapi.DataOutput[adminview.TestEvent], error) {
	msg := ""
	if in.Body != nil {
		msg = in.Body.Message
	}
	r, err := h.svc.SendTest(ctx, in.TeamID, in.WebhookID, msg)
	if err != nil {
		return nil, err
	}
	return httpapi.Data(adminview.TestEvent{EventID: r.EventID, DeliveryID: r.DeliveryID, Skipped: r.Skipped}), nil
}

func (h *handler) adminAttempts(ctx context.Context, in *struct {
	TeamID    string `path:"team_id"`
	WebhookID string `path:"webhook_id"`
	httpapi.PageParams
}) (*httpapi.ListOutput[adminview.Attempt], error) {
	as, err := h.svc.Attempts(ctx, in.TeamID, in.WebhookID, in.Limit, in.Offset)
	return page(in.PageParams, as, err, adminview.AttemptFrom)
}

func (h *handler) adminThrottle(ctx context.Context, in *struct {
	TeamID    string `path:"team_id"`
	WebhookID string `path:"webhook_id"`
	Body      view.WebhookThrottleBody
}) (*httpapi.DataOutput[adminview.Webhook], error) {
	return adminWebhook(h.svc.SetThrottle(ctx, in.TeamID, in.WebhookID, "", in.Body.MaxPerSecond))
}

func (h *handler) adminDeliveries(ctx context.Context, in *struct {
	TeamID    string `path:"team_id"`
	WebhookID string `path:"webhook_id"`
	view.DeliveriesQuery
}) (*httpapi.ListOutput[view.WebhookDelivery], error) {
	ls, err := h.svc.Deliveries(ctx, in.TeamID, in.WebhookID, in.Status, in.Limit, in.Offset)
	return page(in.PageParams, ls, err, view.DeliveryFrom)
}

func (h *handler) adminRetry(ctx context.Context, in *struct {
	TeamID     string `path:"team_id"`
	WebhookID  string `path:"webhook_id"`
	DeliveryID string `path:"delivery_id"`
}) (*httpapi.DataOutput[view.WebhookDelivery], error) {
	return delivery(h.svc.Retry(ctx, in.TeamID, in.WebhookID, in.DeliveryID, ""))
}

func (h *handler) adminRecover(ctx context.Context, in *struct {
	TeamID    string `path:"team_id"`
	WebhookID string `path:"webhook_id"`
	Body      view.WebhookRecoverBody
}) (*httpapi.DataOutput[view.WebhookRecovery], error) {
	n, err := h.svc.Recover(ctx, in.TeamID, in.WebhookID, "", in.Body.Since)
	return recovery(n, in.Body.Since, err)
}

func (h *handler) adminNotifications(ctx context.Context, in *struct {
	TeamID string `path:"team_id"`
	httpapi.PageParams
}) (*httpapi.ListOutput[adminview.Notification], error) {
	ns, err := h.svc.Notifications(ctx, in.TeamID, in.Limit, in.Offset)
	return page(in.PageParams, ns, err, adminview.NotificationFrom)
}
