package web

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/modules/webhooks/internal/service"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/web"
)

// pageSize is how many deliveries the delivery log shows at a time.
const pageSize = 50

// sinceLayout is a datetime-local field's value (seconds optional).
const sinceLayout = "2006-01-02T15:04"

// row is a webhook as the pages show it: with its owner's name and why it
// is off, in words. Never its secret.
type row struct {
	domain.Webhook
	Owner  string // "" when the owner is no longer on the roster
	Reason string // why it is off, for people; "" when on
}

// reasons are the spec's disabled_reason values in words.
var reasons = map[string]string{
	domain.DisabledConsecutiveFailures: "turned off after " + strconv.Itoa(domain.DisableAfter) + " failed deliveries in a row",
	domain.DisabledCreatorInactive:     "turned off: its owner is no longer an active head coach or team director",
}

func (h *handler) row(ctx context.Context, names map[string]string, w *domain.Webhook) row {
	if _, ok := names[w.OwnerID]; !ok {
		names[w.OwnerID] = ""
		if m, err := h.members.Member(ctx, w.TeamID, w.OwnerID); err == nil {
			names[w.OwnerID] = m.Name
		}
	}
	r := row{Webhook: *w, Owner: names[w.OwnerID]}
	if !w.Enabled {
		r.Reason = "turned off"
		if w.DisabledReason != nil {
			r.Reason = reasons[*w.DisabledReason]
			if r.Reason == "" {
				r.Reason = "turned off (" + *w.DisabledReason + ")"
			}
		}
	}
	return r
}

// addForm is the Add webhook form as typed.
type addForm struct {
	URL    string
	Events map[string]bool
}

// created is a webhook just made, with its secret: shown once.
type created struct {
	ID, URL, Secret string
}

// listView is the Webhooks page.
type listView struct {
	Webhooks []row
	Events   []string // the subscribable types, for the checkboxes
	Form     addForm
	Created  *created
	Err      string
	Full     bool // the team has the most webhooks it may have
	Zone     string
}

func (h *handler) listView(ctx context.Context, v *web.Viewer) (*listView, error) {
	ws, err := h.svc.Webhooks(ctx, v.TeamID, domain.MaxPerTeam, 0)
	if err != nil {
		return nil, err
	}
	lv := &listView{Events: events.Subscribable, Form: addForm{Events: map[string]bool{}}, Zone: v.TimeZone}
	names := map[string]string{}
	for i := range ws[:min(len(ws), domain.MaxPerTeam)] {
		lv.Webhooks = append(lv.Webhooks, h.row(ctx, names, &ws[i]))
	}
	lv.Full = len(ws) >= domain.MaxPerTeam
	return lv, nil
}

// listShow is GET /app/settings/webhooks: the team's webhooks and the
// Add webhook form.
func (h *handler) listShow(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	lv, err := h.listView(r.Context(), v)
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	h.shell.Render(w, r, h.list, http.StatusOK, "Webhooks", lv)
}

// create is POST /app/settings/webhooks: Add webhook, made in the
// dashboard by (and owned by) the viewer. Its secret is shown once, on the
// answer to this POST; a refusal (the URL rules, the events, the plan, the
// limit) is shown on the form and nothing is written.
func (h *handler) create(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		h.shell.Error(w, r, http.StatusBadRequest, "The form could not be read.")
		return
	}
	f := addForm{URL: strings.TrimSpace(r.PostFormValue("url")), Events: map[string]bool{}}
	evs := r.PostForm["events"]
	for _, e := range evs {
		f.Events[e] = true
	}
	var c *service.Created
	err := h.shell.Do(ctx, r, v, "added webhook", func(ctx context.Context) (string, error) {
		var err error
		c, err = h.svc.Create(ctx, service.NewWebhook{TeamID: v.TeamID, URL: f.URL, Events: evs,
			Source: domain.SourceDashboard, CreatedBy: v.MemberID})
		if err != nil {
			return "", err
		}
		return c.Webhook.ID, nil
	})
	lv, verr := h.listView(ctx, v)
	if verr != nil {
		h.shell.Fail(w, r, verr)
		return
	}
	if err != nil {
		status, msg := web.Refusal(err)
		if status == http.StatusInternalServerError {
			h.shell.Fail(w, r, err)
			return
		}
		lv.Err, lv.Form = msg, f
		h.shell.Render(w, r, h.list, status, "Webhooks", lv)
		return
	}
	lv.Created = &created{ID: c.Webhook.ID, URL: c.Webhook.URL, Secret: c.Secret}
	h.shell.Render(w, r, h.list, http.StatusCreated, "Webhooks", lv)
}

// pager is the delivery log's position.
type pager struct {
	Prev, Next string // "" when there is none
}

// deliveryRow is one delivery of the log: its last answer and whether it
// may be sent again.
type deliveryRow struct {
	domain.Listed
	Status   string
	Response string // the last attempt's HTTP status, or its error
	CanRetry bool
}

// webhookView is one webhook's page.
type webhookView struct {
	W          row
	Deliveries []deliveryRow
	Statuses   []string
	Status     string // the log's filter
	Page       pager
	Secret     string // a secret just rotated in: shown once
	Notice     string
	Err        string
	Throttle   string // the throttle field's value
	Since      string // the Since field's value
	Zone       string
}

// notices are what a write that redirected back here says (?done=).
var notices = map[string]string{
	"test":         "Test event sent. Its delivery is in the log below.",
	"test-skipped": "The test event was stored but not sent: webhooks need the Team Plus plan or above.",
	"enabled":      "Turned on. You are now its owner.",
	"throttle":     "Throttle saved.",
	"retried":      "The delivery is being sent again.",
	"recovered-0":  "No undelivered events since then: nothing was queued.",
}

// notice is what ?done= (and, after a recovery, ?n=) says.
func notice(q url.Values) string {
	if q.Get("done") == "recovered" {
		if n, err := strconv.Atoi(q.Get("n")); err == nil && n > 0 {
			if n == 1 {
				return "1 undelivered event was queued again."
			}
			return strconv.Itoa(n) + " undelivered events were queued again."
		}
	}
	return notices[q.Get("done")]
}

var statuses = []string{domain.StatusPending, domain.StatusFailed, domain.StatusDelivered, domain.StatusAbandoned, domain.StatusCancelled}

func (h *handler) webhookView(ctx context.Context, r *http.Request, v *web.Viewer) (*webhookView, error) {
	id := r.PathValue("webhook_id")
	wh, err := h.svc.Webhook(ctx, v.TeamID, id)
	if err != nil {
		return nil, err
	}
	wv := &webhookView{W: h.row(ctx, map[string]string{}, wh), Statuses: statuses, Zone: v.TimeZone,
		Notice: notice(r.URL.Query())}
	if wh.MaxPerSecond != nil {
		wv.Throttle = strconv.Itoa(*wh.MaxPerSecond)
	}
	wv.Since = time.Now().In(zone(v)).Add(-24 * time.Hour).Format(sinceLayout)
	if st := r.URL.Query().Get("status"); slices.Contains(statuses, st) {
		wv.Status = st
	}
	off := web.Offset(r)
	ds, err := h.svc.Deliveries(ctx, v.TeamID, id, wv.Status, pageSize, off)
	if err != nil {
		return nil, err
	}
	for _, d := range ds[:min(len(ds), pageSize)] {
		dr := deliveryRow{Listed: d, Status: d.Delivery.Status()}
		if n := len(d.Attempts); n > 0 {
			last := d.Attempts[n-1]
			switch {
			case last.StatusCode != nil:
				dr.Response = "HTTP " + strconv.Itoa(*last.StatusCode)
			case last.Error != nil:
				dr.Response = *last.Error
			}
		}
		dr.CanRetry = wh.Enabled && (dr.Status == domain.StatusAbandoned || dr.Status == domain.StatusCancelled)
		wv.Deliveries = append(wv.Deliveries, dr)
	}
	at := func(o int) string {
		q := url.Values{"offset": {strconv.Itoa(o)}}
		if wv.Status != "" {
			q.Set("status", wv.Status)
		}
		return r.URL.Path + "?" + q.Encode()
	}
	if off > 0 {
		wv.Page.Prev = at(max(0, off-pageSize))
	}
	if len(ds) > pageSize {
		wv.Page.Next = at(off + pageSize)
	}
	return wv, nil
}

// zone is the team's time zone (UTC when it cannot be loaded).
func zone(v *web.Viewer) *time.Location {
	if loc, err := time.LoadLocation(v.TimeZone); err == nil {
		return loc
	}
	return time.UTC
}

// show is GET /app/settings/webhooks/{webhook_id}: the webhook, its
// actions and its delivery log. Another team's id is 404.
func (h *handler) show(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	wv, err := h.webhookView(r.Context(), r, v)
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	h.shell.Render(w, r, h.webhook, http.StatusOK, "Webhook", wv)
}

// again renders the webhook's page with a refusal (and, for the form it
// came from, what was typed).
func (h *handler) again(w http.ResponseWriter, r *http.Request, v *web.Viewer, status int, msg string, keep func(*webhookView)) {
	wv, err := h.webhookView(r.Context(), r, v)
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	wv.Err = msg
	if keep != nil {
		keep(wv)
	}
	h.shell.Render(w, r, h.webhook, status, "Webhook", wv)
}

// write runs a webhook page's write with its activity text and goes back
// to the webhook's page (?done=done()), or shows the refusal there.
func (h *handler) write(w http.ResponseWriter, r *http.Request, v *web.Viewer, action string, fn func(ctx context.Context, id string) (string, error)) {
	id := r.PathValue("webhook_id")
	var done string
	err := h.shell.Do(r.Context(), r, v, action, func(ctx context.Context) (string, error) {
		var err error
		done, err = fn(ctx, id)
		return id, err
	})
	if err != nil {
		h.refuse(w, r, err, func(status int, msg string) { h.again(w, r, v, status, msg, nil) })
		return
	}
	web.Redirect(w, r, "/app/settings/webhooks/"+url.PathEscape(id)+"?done="+url.QueryEscape(done))
}

// sendTest is POST .../test: Send test event (webhook.test, to this
// webhook only). A webhook that is off refuses (409).
func (h *handler) sendTest(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	h.write(w, r, v, "sent test event", func(ctx context.Context, id string) (string, error) {
		t, err := h.svc.SendTest(ctx, v.TeamID, id, "")
		if err != nil {
			return "", err
		}
		if t.Skipped {
			return "test-skipped", nil
		}
		return "test", nil
	})
}

// enable is POST .../enable: Turn on. The viewer becomes its owner (spec
// §3) and its failure count starts again.
func (h *handler) enable(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	h.write(w, r, v, "turned on webhook", func(ctx context.Context, id string) (string, error) {
		_, err := h.svc.Enable(ctx, v.TeamID, id, v.MemberID)
		return "enabled", err
	})
}

// delete is POST .../delete: Delete, with its pending deliveries.
func (h *handler) delete(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	id := r.PathValue("webhook_id")
	err := h.shell.Do(r.Context(), r, v, "deleted webhook", func(ctx context.Context) (string, error) {
		_, err := h.svc.Delete(ctx, v.TeamID, id)
		return id, err
	})
	if err != nil {
		h.refuse(w, r, err, func(status int, msg string) { h.again(w, r, v, status, msg, nil) })
		return
	}
	web.Redirect(w, r, "/app/settings/webhooks")
}

// rotate is POST .../rotate: Rotate secret. The new secret is shown once,
// on the answer to this POST; the old one keeps signing for the overlap.
func (h *handler) rotate(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	id := r.PathValue("webhook_id")
	var secret string
	err := h.shell.Do(r.Context(), r, v, "rotated webhook secret", func(ctx context.Context) (string, error) {
		rot, err := h.svc.RotateSecret(ctx, v.TeamID, id, v.MemberID)
		if err != nil {
			return "", err
		}
		secret = rot.Secret
		return id, nil
	})
	if err != nil {
		h.refuse(w, r, err, func(status int, msg string) { h.again(w, r, v, status, msg, nil) })
		return
	}
	wv, err := h.webhookView(r.Context(), r, v)
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	wv.Secret = secret
	h.shell.Render(w, r, h.webhook, http.StatusOK, "Webhook", wv)
}

// errThrottle is the throttle field's refusal when it is not a number.
var errThrottle = fault.Newf(fault.Invalid, fault.CodeInvalidRequest,
	"Deliveries per second must be a whole number from 1 to %d, or empty for no limit.", domain.MaxPerSecondLimit)

// throttle is POST .../throttle: the per-endpoint throttle (empty: no limit).
func (h *handler) throttle(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	raw := strings.TrimSpace(r.PostFormValue("max_per_second"))
	keep := func(wv *webhookView) { wv.Throttle = raw }
	var n *int
	if raw != "" {
		i, err := strconv.Atoi(raw)
		if err != nil {
			status, msg := web.Refusal(errThrottle)
			h.again(w, r, v, status, msg, keep)
			return
		}
		n = &i
	}
	id := r.PathValue("webhook_id")
	err := h.shell.Do(r.Context(), r, v, "changed webhook throttle", func(ctx context.Context) (string, error) {
		_, err := h.svc.SetThrottle(ctx, v.TeamID, id, v.MemberID, n)
		return id, err
	})
	if err != nil {
		h.refuse(w, r, err, func(status int, msg string) { h.again(w, r, v, status, msg, keep) })
		return
	}
	web.Redirect(w, r, "/app/settings/webhooks/"+url.PathEscape(id)+"?done=throttle")
}

// retry is POST .../deliveries/{delivery_id}/retry: send an ended
// delivery again, in a new round of attempts.
func (h *handler) retry(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	did := r.PathValue("delivery_id")
	id := r.PathValue("webhook_id")
	err := h.shell.Do(r.Context(), r, v, "retried webhook delivery", func(ctx context.Context) (string, error) {
		_, err := h.svc.Retry(ctx, v.TeamID, id, did, v.MemberID)
		return did, err
	})
	if err != nil {
		h.refuse(w, r, err, func(status int, msg string) { h.again(w, r, v, status, msg, nil) })
		return
	}
	web.Redirect(w, r, "/app/settings/webhooks/"+url.PathEscape(id)+"?done=retried")
}

// errSince is the Since field's refusal when it is not a time.
var errSince = fault.New(fault.Invalid, fault.CodeInvalidRequest, "Since must be a date and time.")

// recover is POST .../recover: every delivery since a time (the team's
// local time) that ended unsent is queued again.
func (h *handler) recover(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	raw := strings.TrimSpace(r.PostFormValue("since"))
	keep := func(wv *webhookView) { wv.Since = raw }
	since, err := time.ParseInLocation(sinceLayout, raw, zone(v))
	if err != nil {
		since, err = time.ParseInLocation(sinceLayout+":05", raw, zone(v))
	}
	if err != nil {
		status, msg := web.Refusal(errSince)
		h.again(w, r, v, status, msg, keep)
		return
	}
	id := r.PathValue("webhook_id")
	var n int
	err = h.shell.Do(r.Context(), r, v, "recovered webhook deliveries", func(ctx context.Context) (string, error) {
		var err error
		n, err = h.svc.Recover(ctx, v.TeamID, id, v.MemberID, since.UTC())
		return id, err
	})
	if err != nil {
		h.refuse(w, r, err, func(status int, msg string) { h.again(w, r, v, status, msg, keep) })
		return
	}
	done := "recovered&n=" + strconv.Itoa(n)
	if n == 0 {
		done = "recovered-0"
	}
	web.Redirect(w, r, "/app/settings/webhooks/"+url.PathEscape(id)+"?done="+done)
}
