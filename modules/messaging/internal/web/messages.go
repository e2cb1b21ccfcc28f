package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/web"
)

// pageSize is how many rows a list shows at a time.
const pageSize = 50

// pager is a list's position: the page shown, and links to its neighbours.
type pager struct {
	Offset     int
	Prev, Next string // "" when there is none
}

// page reads ?offset=.
func page(r *http.Request) int { return web.Offset(r) }

// links are the neighbours of the page at offset of size rows, keeping the
// request's other query parameters; got is the rows read (size+1 means
// there is more).
func links(r *http.Request, offset, got, size int) pager {
	p := pager{Offset: offset}
	at := func(o int) string {
		q := url.Values{}
		for k, v := range r.URL.Query() {
			q[k] = v
		}
		q.Set("offset", strconv.Itoa(o))
		return r.URL.Path + "?" + q.Encode()
	}
	if offset > 0 {
		p.Prev = at(max(0, offset-size))
	}
	if got > size {
		p.Next = at(offset + size)
	}
	return p
}

// messagesView is the Messages list.
type messagesView struct {
	Messages []domain.Message
	Page     pager
	Zone     string
}

// messagesList is GET /app/messages: the team's messages, newest first.
func (h *handler) messagesList(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	off := page(r)
	ms, err := h.svc.Send.Messages(r.Context(), v.TeamID, pageSize, off)
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	mv := messagesView{Messages: ms[:min(len(ms), pageSize)], Page: links(r, off, len(ms), pageSize), Zone: v.TimeZone}
	h.shell.Render(w, r, h.messages, http.StatusOK, "Messages", mv)
}

// messageView is one message's page.
type messageView struct {
	M          *domain.Message
	Deliveries []domain.Delivery
	Statuses   []string
	Status     string // the deliveries' filter
	Page       pager
	Zone       string
	CanResend  bool
	Err        string
}

// Done reports whether every text has its final word: the page stops
// polling. A message handed over (status sent) still has texts the carrier
// has not reported on; those count as not done, so the page follows them
// until each is delivered, failed or unconfirmed. A message with no texts
// yet (waiting for approval, say) is done: nothing moves until someone acts,
// and so is one whose only texts left are held for quiet hours until morning.
func (m messageView) Done() bool { return progressDone(m.M) }

func progressDone(m *domain.Message) bool { return m.QueuedCount-m.HeldNow+m.SentCount == 0 }

// Percent is the share of texts with a final status.
func (m messageView) Percent() int { return percent(m.M) }

func percent(m *domain.Message) int {
	if m.Recipients == 0 {
		return 100
	}
	final := m.DeliveredCount + m.FailedCount + m.UnconfirmedCount
	return final * 100 / m.Recipients
}

func (h *handler) messageView(ctx context.Context, r *http.Request, v *web.Viewer) (*messageView, error) {
	id := r.PathValue("message_id")
	m, err := h.svc.Send.Message(ctx, v.TeamID, id)
	if err != nil {
		return nil, err
	}
	mv := &messageView{M: m, Statuses: domain.DeliveryStatuses, Zone: v.TimeZone}
	mv.Status = r.URL.Query().Get("status")
	if !domain.DeliveryStatus(mv.Status) {
		mv.Status = ""
	}
	off := page(r)
	ds, err := h.svc.Send.Deliveries(ctx, v.TeamID, id, mv.Status, pageSize, off)
	if err != nil {
		return nil, err
	}
	mv.Deliveries, mv.Page = ds[:min(len(ds), pageSize)], links(r, off, len(ds), pageSize)
	mv.CanResend = v.May(perm(rosterapi.PermSend)) && m.FailedCount > 0 && progressDone(m)
	return mv, nil
}

// messageShow is GET /app/messages/{message_id}: counts, progress, and
// the deliveries (filtered by ?status=). Another team's id is 404.
func (h *handler) messageShow(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	mv, err := h.messageView(r.Context(), r, v)
	h.show(w, r, h.message, "Message", mv, err)
}

// messageProgress is GET /app/messages/{message_id}/progress: the counts
// alone, polled by the page's script every two seconds until every text
// has its final status.
func (h *handler) messageProgress(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	m, err := h.svc.Send.Message(r.Context(), v.TeamID, r.PathValue("message_id"))
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	h.shell.Fragment(w, r, h.message, "progress", http.StatusOK, messageView{M: m})
}

// messageResend is POST /app/messages/{message_id}/resend: Resend to
// failed, a new message to the recipients whose texts failed for reasons
// worth another try.
func (h *handler) messageResend(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	ctx := r.Context()
	id := r.PathValue("message_id")
	var to string
	err := h.shell.Do(ctx, r, v, "resent message to failed", func(ctx context.Context) (string, error) {
		out, err := h.svc.Send.Resend(ctx, sender(v), id, service.ResendOnlyFailed)
		if err != nil {
			return "", err
		}
		to = "/app/messages/" + out.Message.ID
		return id, nil
	})
	if err != nil {
		h.refuse(w, r, err, func(status int, msg string) {
			mv, err := h.messageView(ctx, r, v)
			if err != nil {
				h.shell.Fail(w, r, err)
				return
			}
			mv.Err = msg
			h.shell.Render(w, r, h.message, status, "Message", mv)
		})
		return
	}
	web.Redirect(w, r, to)
}
