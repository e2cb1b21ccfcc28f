package web

import (
	"context"
	"net/http"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/web"
)

// inboxPage is how many texts the inbox shows at a time, in each of its
// two lists: each carries its reply box, and the page stays light on a
// phone (60 KB).
const inboxPage = 20

// inboxItem is one text as the inbox shows it, with what its reply form needs.
type inboxItem struct {
	In   domain.Inbound
	Page *inboxView
	CSRF string
}

// inboxView is the Inbox page: unread texts first, then the rest.
type inboxView struct {
	Unread   []inboxItem
	Earlier  []inboxItem
	Page     pager
	Zone     string
	CanReply bool
	Err      string
	ErrID    string // the item the error is about
}

func (h *handler) inboxView(ctx context.Context, r *http.Request, v *web.Viewer) (*inboxView, error) {
	iv := &inboxView{Zone: v.TimeZone, CanReply: v.May(perm(rosterapi.PermReply))}
	off := page(r)
	if off == 0 {
		unread, err := h.svc.Inbox.List(ctx, v.TeamID, string(domain.InboxUnread), inboxPage, 0)
		if err != nil {
			return nil, err
		}
		for _, in := range unread[:min(len(unread), inboxPage)] {
			iv.Unread = append(iv.Unread, inboxItem{In: in, Page: iv, CSRF: v.CSRF})
		}
	}
	all, err := h.svc.Inbox.List(ctx, v.TeamID, "", inboxPage, off)
	if err != nil {
		return nil, err
	}
	iv.Page = links(r, off, len(all), inboxPage)
	shown := map[string]bool{}
	for _, it := range iv.Unread {
		shown[it.In.ID] = true
	}
	for _, in := range all[:min(len(all), inboxPage)] {
		if !shown[in.ID] {
			iv.Earlier = append(iv.Earlier, inboxItem{In: in, Page: iv, CSRF: v.CSRF})
		}
	}
	return iv, nil
}

// inboxList is GET /app/inbox.
func (h *handler) inboxList(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	iv, err := h.inboxView(r.Context(), r, v)
	h.show(w, r, h.inbox, "Inbox", iv, err)
}

// inboxReply is POST /app/inbox/{inbound_id}/reply: Send reply, a text to
// the one number that sent the item, which is then marked read.
func (h *handler) inboxReply(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	id := r.PathValue("inbound_id")
	err := h.shell.Do(r.Context(), r, v, "replied to text", func(ctx context.Context) (string, error) {
		_, err := h.svc.Replies.Reply(ctx, inbound.ReplyInput{TeamID: v.TeamID, MessageID: id, MemberID: v.MemberID, Body: r.PostFormValue("body")})
		return id, err
	})
	if err != nil {
		h.refuse(w, r, err, func(status int, msg string) {
			iv, err := h.inboxView(r.Context(), r, v)
			if err != nil {
				h.shell.Fail(w, r, err)
				return
			}
			iv.Err, iv.ErrID = msg, id
			h.shell.Render(w, r, h.inbox, status, "Inbox", iv)
		})
		return
	}
	web.Redirect(w, r, "/app/inbox")
}

// inboxMarkAllRead is POST /app/inbox/read: Mark all read.
func (h *handler) inboxMarkAllRead(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	err := h.shell.Do(r.Context(), r, v, "marked inbox read", func(ctx context.Context) (string, error) {
		_, err := h.svc.Inbox.MarkAllRead(ctx, v.TeamID)
		return v.TeamID, err
	})
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	web.Redirect(w, r, "/app/inbox")
}
