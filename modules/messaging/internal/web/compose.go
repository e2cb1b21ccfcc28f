package web

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/web"
)

// composeForm is Compose's form as typed: shown again on every answer so
// nothing the coach wrote is lost.
type composeForm struct {
	Text        string
	TemplateID  string
	Audience    string // all, staff, families, or "group:" + the group's id
	Urgent      bool
	SendAt      string // datetime-local, the team's local time
	RepeatUntil string // a date
	// ReplyOptions makes the send a poll: words separated by spaces or
	// commas ("YES NO MAYBE"); empty for an ordinary send.
	ReplyOptions string
}

// localLayout is an <input type=datetime-local> value.
const localLayout = "2006-01-02T15:04"

func readCompose(r *http.Request) composeForm {
	return composeForm{
		Text:         r.PostFormValue("text"),
		TemplateID:   r.PostFormValue("template_id"),
		Audience:     r.PostFormValue("audience"),
		Urgent:       r.PostFormValue("urgent") != "",
		SendAt:       strings.TrimSpace(r.PostFormValue("send_at")),
		RepeatUntil:  strings.TrimSpace(r.PostFormValue("repeat_until")),
		ReplyOptions: strings.TrimSpace(r.PostFormValue("reply_options")),
	}
}

// replyWords splits Compose's reply options at spaces and commas.
// An empty field is no poll (nil).
func replyWords(s string) []string {
	ws := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	if len(ws) == 0 {
		return nil
	}
	return ws
}

// input is the form as messaging's send use case takes it: the send time
// read in the team's zone, the audience split into audience and group.
func (f composeForm) input(zone string) (service.SendInput, error) {
	in := service.SendInput{Text: f.Text, TemplateID: f.TemplateID, Audience: f.Audience, Urgent: f.Urgent, MergeTags: true,
		ReplyOptions: replyWords(f.ReplyOptions)}
	if g, ok := strings.CutPrefix(f.Audience, "group:"); ok {
		in.Audience, in.GroupID = string(messagingapi.AudienceGroup), g
	}
	if f.Text != "" && f.TemplateID != "" {
		return in, fault.Invalidf("Choose a template or write a message, not both.")
	}
	if f.SendAt != "" {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			loc = time.UTC
		}
		at, err := time.ParseInLocation(localLayout, f.SendAt, loc)
		if err != nil {
			return in, fault.New(fault.Invalid, domain.CodeInvalidScheduledFor, "Send at must be a date and a time.")
		}
		in.ScheduledFor = at.Format(time.RFC3339)
	}
	if f.RepeatUntil != "" {
		if f.SendAt == "" {
			return in, fault.New(fault.Invalid, domain.CodeInvalidRepeat, "A weekly repeat needs Send at, the first send.")
		}
		in.Repeat = &service.Repeat{Every: domain.RepeatWeek, Until: f.RepeatUntil}
	}
	return in, nil
}

// preview is what the page says before a send.
type preview struct {
	Err         string
	Recipients  int
	Sample      string
	Encoding    string
	Segments    int
	Credits     int
	Skipped     int
	LastAt      time.Time
	Held        int // texts quiet hours would hold
	Zone        string
	Missing     []service.TagGap
	Approval    bool
	Urgent      bool
	ScheduledAt *time.Time
	// ReplyLine is a poll's "Reply YES, NO or MAYBE" (the sample ends with
	// it), open until ReplyUntil; "" for an ordinary send.
	ReplyLine  string
	ReplyUntil *time.Time
}

// composeView is the Compose page.
type composeView struct {
	Form      composeForm
	Templates []domain.Template
	Groups    []rosterapi.GroupChoice
	Urgent    bool // the viewer may send urgent alerts
	Preview   *preview
	Err       string
}

// Button is the send button's label: Schedule when a time is set.
func (c composeView) Button() string {
	if c.Form.SendAt != "" {
		return "Schedule"
	}
	return "Send"
}

func (h *handler) composeView(ctx context.Context, v *web.Viewer, f composeForm) (composeView, error) {
	cv := composeView{Form: f, Urgent: v.May(perm(rosterapi.PermUrgent))}
	if cv.Form.Audience == "" {
		cv.Form.Audience = string(messagingapi.AudienceAll)
	}
	ts, err := h.svc.Send.Templates(ctx, v.TeamID, 200, 0)
	if err != nil {
		return cv, err
	}
	for _, t := range ts[:min(len(ts), 200)] {
		if t.MessageType != domain.TypeUrgentAlert || cv.Urgent {
			cv.Templates = append(cv.Templates, t)
		}
	}
	if cv.Groups, err = h.svc.Groups.GroupChoices(ctx, v.TeamID); err != nil {
		return cv, err
	}
	return cv, nil
}

// composeShow is GET /app/compose.
func (h *handler) composeShow(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	cv, err := h.composeView(r.Context(), v, composeForm{Audience: r.URL.Query().Get("audience")})
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	h.shell.Render(w, r, h.compose, http.StatusOK, "Compose", cv)
}

func sender(v *web.Viewer) service.Sender {
	return service.Sender{TeamID: v.TeamID, MemberID: v.MemberID, Source: domain.SourceDashboard}
}

// estimate runs the send's checks and says what it would do; a refusal is
// the preview's error, with its status.
func (h *handler) estimate(r *http.Request, v *web.Viewer, f composeForm) (*preview, int) {
	if f.Urgent && !v.May(perm(rosterapi.PermUrgent)) {
		return &preview{Err: "Your role may not send urgent alerts."}, http.StatusForbidden
	}
	in, err := f.input(v.TimeZone)
	if err == nil && strings.TrimSpace(f.Text) == "" && f.TemplateID == "" {
		return nil, http.StatusOK // nothing typed yet
	}
	var p *service.Plan
	if err == nil {
		p, err = h.svc.Send.Estimate(r.Context(), sender(v), in)
	}
	if err != nil {
		status, msg := h.shell.Refusal(r, err)
		return &preview{Err: msg}, status
	}
	return &preview{Recipients: len(p.Phones), Sample: p.Sample, Encoding: string(p.Encoding), Segments: p.Segments,
		Credits: p.Credits, Skipped: p.SkippedUndeliverable, LastAt: p.Completion, Held: p.Held, Zone: v.TimeZone, Missing: p.Missing,
		Approval: p.ApprovalRequired, Urgent: p.Urgent, ScheduledAt: p.ScheduledFor,
		ReplyLine: domain.ReplyLine(p.ReplyOptions), ReplyUntil: p.ReplyUntil}, http.StatusOK
}

// composePreview is POST /app/compose/preview: the preview alone, for the
// live preview as the coach types.
func (h *handler) composePreview(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	pv, status := h.estimate(r, v, readCompose(r))
	h.shell.Fragment(w, r, h.compose, "preview", status, pv)
}

// composeSubmit is POST /app/compose: Preview shows the page again with
// the preview; Send (or Schedule) sends, then lands on the message's page
// (a scheduled send lands on Scheduled).
func (h *handler) composeSubmit(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	ctx := r.Context()
	f := readCompose(r)
	cv, err := h.composeView(ctx, v, f)
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	if r.PostFormValue("action") == "preview" {
		var status int
		cv.Preview, status = h.estimate(r, v, f)
		h.shell.Render(w, r, h.compose, status, "Compose", cv)
		return
	}
	status, to := h.send(ctx, r, v, f)
	if status != 0 {
		cv.Err = to
		h.shell.Render(w, r, h.compose, status, "Compose", cv)
		return
	}
	web.Redirect(w, r, to)
}

// send sends the form's broadcast and its activity record in one
// transaction; it returns where to go next, or a refusal's status and
// message.
func (h *handler) send(ctx context.Context, r *http.Request, v *web.Viewer, f composeForm) (int, string) {
	if f.Urgent && !v.May(perm(rosterapi.PermUrgent)) {
		return http.StatusForbidden, "Your role may not send urgent alerts."
	}
	in, err := f.input(v.TimeZone)
	if err != nil {
		return web.Refusal(err)
	}
	action := "sent message"
	switch {
	case in.ScheduledFor != "":
		action = "scheduled message"
	case f.Urgent:
		action = "sent urgent alert"
	}
	var to string
	err = h.shell.Do(ctx, r, v, action, func(ctx context.Context) (string, error) {
		out, err := h.svc.Send.Send(ctx, sender(v), in)
		if err != nil {
			return "", err
		}
		if out.Scheduled != nil {
			to = "/app/scheduled"
			return out.Scheduled.ID, nil
		}
		to = "/app/messages/" + out.Message.ID
		return out.Message.ID, nil
	})
	if err != nil {
		return h.shell.Refusal(r, err)
	}
	return 0, to
}
