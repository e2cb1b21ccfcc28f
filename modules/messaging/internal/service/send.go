package service

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/ingest"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
)

// Sender is who a send acts for.
type Sender struct {
	TeamID   string
	KeyID    string // the API key; empty for dashboard and campaign sends
	MemberID string // the person: the key's creator, the signed-in staff member, the campaign's creator
	Source   domain.Source
	// AllowUrgent lets urgent-alert templates and urgent sends through for
	// a campaign made in the dashboard by someone allowed them. The API
	// never sets it; a dashboard send's urgency is decided by its sender's
	// role (rosterapi.PermUrgent).
	AllowUrgent bool
}

// Repeat is a weekly repetition.
type Repeat struct {
	Every string `json:"every"`
	Until string `json:"until"`
}

// SendInput is the body of POST /messages and /messages/estimate.
type SendInput struct {
	Text         string  `json:"text,omitempty"`
	TemplateID   string  `json:"template_id,omitempty"`
	Audience     string  `json:"audience"`
	GroupID      string  `json:"group_id,omitempty"`
	ScheduledFor string  `json:"scheduled_for,omitempty"`
	Repeat       *Repeat `json:"repeat,omitempty"`
	Urgent       bool    `json:"urgent,omitempty"` // dashboard and campaigns only
	// MergeTags renders merge tags per recipient: set by the dashboard's
	// Compose (and kept with its scheduled sends) and by a resend of a
	// text that had them; the API never sets it, so there tags are refused.
	MergeTags bool `json:"merge_tags,omitempty"`
	// ResendOf makes the send a resend of that message to its failed
	// recipients (resend.go): never stored with a scheduled send.
	ResendOf string `json:"-"`
	// ScheduledID is set by a scheduled send's occurrence (run.go): the
	// message records where it came from.
	ScheduledID string `json:"-"`
	// ReplyOptions make the send a poll (RSVP by reply), open
	// until ReplyUntil (RFC 3339; "" is 7 days after the send).
	ReplyOptions []string `json:"reply_options,omitempty"`
	ReplyUntil   string   `json:"reply_until,omitempty"`
	// ReplyWindowSeconds is how long each occurrence of a scheduled poll
	// stays open (its reply_until minus its scheduled_for): a scheduled
	// send stores it instead of ReplyUntil, so every week of a series is
	// open as long as the first. Never set through the API.
	ReplyWindowSeconds int64 `json:"reply_window_seconds,omitempty"`
}

// Plan is a checked send: what would go out, to whom, at what cost.
type Plan struct {
	Team             rosterapi.Team
	Text             string
	TemplateID       string
	Rendered         string
	Encoding         domain.Encoding
	Segments         int
	Phones           []string            // distinct recipient phones, in roster order
	MemberIDs        map[string][]string // phone -> roster entries
	Credits          int
	Urgent           bool // an urgent alert: in.Urgent, or an urgent-alert template
	ApprovalRequired bool
	ScheduledFor     *time.Time
	RepeatUntil      *time.Time
	Completion       time.Time // estimates: when the last text would reach the carrier
	Held             int       // estimates: texts quiet hours would hold
	// Sample is the first recipient's text as they get it (Rendered when
	// the text has no merge tags). Missing counts, per tag, the recipients
	// with no value for it (left empty in their text).
	Sample  string
	Missing []TagGap
	// Texts are the recipients' own texts by position (merge tags); nil
	// when all get Rendered. Segments is then the largest, Encoding UCS-2
	// if any needs it, and Credits their exact sum.
	Texts []domain.Text
	merge domain.MergeText

	// SkippedUndeliverable counts the audience's numbers marked
	// undeliverable: not texted, not charged.
	SkippedUndeliverable int

	// ReplyOptions make the send a poll (upper-case), open until
	// ReplyUntil; the reply line ends every recipient's text.
	ReplyOptions []string
	ReplyUntil   *time.Time
}

// TagGap is a merge tag some recipients have no value for.
type TagGap struct {
	Tag        string
	Recipients int
}

// prepare runs every check of a send, in this order: body validation (400),
// the team's sending number (409 no_sender), billing (402), then the
// audience is resolved. Estimates and sends share it.
func (s *Service) prepare(ctx context.Context, snd Sender, in SendInput, resolve bool) (*Plan, error) {
	team, err := s.Teams.Team(ctx, snd.TeamID)
	if err != nil {
		return nil, err
	}
	approver, err := s.checkSender(ctx, &snd)
	if err != nil {
		return nil, err
	}
	p := &Plan{Team: team}
	if in.Urgent && !snd.AllowUrgent {
		return nil, fault.New(fault.Invalid, domain.CodeUrgentNotAllowed, "urgent alerts cannot be sent through the API")
	}
	switch {
	case in.Text != "" && in.TemplateID != "":
		return nil, fault.Invalidf("send text or template_id, not both")
	case in.TemplateID != "":
		t, err := s.TemplateStore.Template(ctx, snd.TeamID, in.TemplateID)
		if err != nil {
			return nil, mapNotFound(err, errTemplateNotFound)
		}
		if err := t.Sendable(snd.AllowUrgent); err != nil {
			return nil, err
		}
		p.Text, p.TemplateID = t.Body, t.ID
		p.Urgent = t.MessageType == domain.TypeUrgentAlert
	case in.Text != "":
		p.Text = in.Text
	default:
		return nil, fault.Invalidf("text is required unless template_id is given")
	}
	p.Urgent = p.Urgent || in.Urgent
	p.ApprovalRequired = domain.NeedsApproval(team.ApprovalRequired, snd.Source, p.Urgent, approver)
	if p.Text, err = domain.ValidText(p.Text); err != nil {
		return nil, err
	}
	if p.merge, err = s.mergeText(ctx, snd, in, p.Text); err != nil {
		return nil, err
	}
	if err := checkAudience(in.Audience, in.GroupID); err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	if in.ScheduledFor != "" {
		at, err := domain.ParseScheduledFor(in.ScheduledFor)
		if err != nil {
			return nil, err
		}
		if err := domain.CheckScheduledFor(at, now); err != nil {
			return nil, err
		}
		p.ScheduledFor = &at
	}
	if in.Repeat != nil {
		if in.Repeat.Every != domain.RepeatWeek {
			return nil, fault.New(fault.Invalid, domain.CodeInvalidRepeat, `repeat.every must be "week"`)
		}
		if p.ScheduledFor == nil {
			return nil, fault.New(fault.Invalid, domain.CodeInvalidRepeat, "repeat needs scheduled_for, the first send")
		}
		loc, err := time.LoadLocation(team.TimeZone)
		if err != nil {
			return nil, fmt.Errorf("team time zone: %w", err)
		}
		until, err := domain.ParseUntil(in.Repeat.Until, *p.ScheduledFor, now, loc)
		if err != nil {
			return nil, err
		}
		p.RepeatUntil = &until
	}
	if err := replyOptions(p, in, now); err != nil {
		return nil, err
	}
	p.Rendered = domain.RenderPoll(team.Name, p.Text, p.ReplyOptions)
	info := domain.Segments(p.Rendered)
	p.Encoding, p.Segments = info.Encoding, info.Segments
	if team.Number == "" {
		return nil, fault.New(fault.Conflict, domain.CodeNoSender, "the team has no phone number to send from")
	}
	acc, err := s.Billing.Get(ctx, snd.TeamID)
	if err != nil {
		return nil, err
	}
	if acc.PaymentState == billingapi.PaymentOverdue {
		return nil, fault.New(fault.PaymentRequired, domain.CodePaymentRequired, "sending is paused until the overdue renewal is paid")
	}
	if !resolve {
		return p, nil
	}
	rs, err := s.recipients(ctx, snd.TeamID, in.Audience, in.GroupID, in.ResendOf)
	if err != nil {
		return nil, err
	}
	rs, p.SkippedUndeliverable = deliverable(rs)
	if err := s.texts(ctx, p, rs); err != nil {
		return nil, err
	}
	if acc.Trial && p.Credits > acc.TrialRemaining() {
		return nil, fault.Newf(fault.PaymentRequired, domain.CodeTrialLimit, "this send needs %d credits; %d trial credits remain", p.Credits, acc.TrialRemaining())
	}
	return p, nil
}

// replyOptions checks a poll's options and sets when it closes: reply_until
// is counted from the send (the scheduled time for a scheduled send).
func replyOptions(p *Plan, in SendInput, now time.Time) error {
	opts, err := domain.ParseReplyOptions(in.ReplyOptions)
	if err != nil {
		return err
	}
	sendAt := now
	if p.ScheduledFor != nil {
		sendAt = *p.ScheduledFor
	}
	raw := in.ReplyUntil
	if in.ReplyWindowSeconds > 0 && raw == "" {
		raw = sendAt.Add(time.Duration(in.ReplyWindowSeconds) * time.Second).Format(time.RFC3339Nano)
	}
	until, err := domain.ReplyUntil(raw, len(opts) > 0, sendAt)
	if err != nil {
		return err
	}
	p.ReplyOptions, p.ReplyUntil = opts, until
	return nil
}

// mergeText checks a text's merge tags. They are rendered only for sends
// made in the dashboard (Compose, its scheduled sends, resends of its
// texts); every other send with a tag is refused as before (400
// merge_tags_unsupported, or private_field).
func (s *Service) mergeText(ctx context.Context, snd Sender, in SendInput, text string) (domain.MergeText, error) {
	fields, err := s.Lookup.CustomFieldKeys(ctx, snd.TeamID)
	if err != nil {
		return domain.MergeText{}, err
	}
	dashboard := snd.Source == domain.SourceDashboard || snd.Source == domain.SourceSchedule || in.ResendOf != ""
	if !in.MergeTags || !dashboard {
		return domain.MergeText{}, domain.CheckMergeTags(text, fields)
	}
	return domain.ParseMerge(text, fields)
}

// texts sets the plan's recipients (one text per phone) and what they
// cost. With merge tags each phone gets its own text, rendered for the
// first of its roster entries (roster order), and is counted on it.
func (s *Service) texts(ctx context.Context, p *Plan, rs []rosterapi.Recipient) error {
	p.Phones, p.MemberIDs = dedupe(rs)
	p.Sample, p.Credits = p.Rendered, len(p.Phones)*p.Segments
	if !p.merge.Tagged() || len(p.Phones) == 0 {
		return nil
	}
	values := map[string]map[string]string{}
	if keys := p.merge.Fields(); len(keys) > 0 {
		if s.Merge == nil {
			return fmt.Errorf("merge tags: no field values reader")
		}
		var err error
		if values, err = s.Merge.FieldValues(ctx, p.Team.ID, keys); err != nil {
			return err
		}
	}
	first := make(map[string]rosterapi.Recipient, len(p.Phones))
	for _, r := range rs {
		if _, ok := first[string(r.Phone)]; !ok {
			first[string(r.Phone)] = r
		}
	}
	p.Texts, p.Credits, p.Segments, p.Encoding = make([]domain.Text, len(p.Phones)), 0, 0, domain.GSM7
	missing := map[string]int{}
	for i, ph := range p.Phones {
		r := first[ph]
		body, gaps := p.merge.Render(domain.MergeValues{Name: r.Name, TeamName: p.Team.Name, Fields: values[r.MemberID]})
		rendered := domain.RenderPoll(p.Team.Name, body, p.ReplyOptions)
		info := domain.Segments(rendered)
		p.Texts[i] = domain.Text{Body: rendered, Segments: info.Segments}
		p.Credits += info.Segments
		p.Segments = max(p.Segments, info.Segments)
		if info.Encoding == domain.UCS2 {
			p.Encoding = domain.UCS2
		}
		for _, g := range gaps {
			missing[g]++
		}
	}
	p.Sample = p.Texts[0].Body
	p.Missing = p.Missing[:0]
	for tag, n := range missing {
		p.Missing = append(p.Missing, TagGap{Tag: tag, Recipients: n})
	}
	sort.Slice(p.Missing, func(i, j int) bool { return p.Missing[i].Tag < p.Missing[j].Tag })
	return nil
}

// checkSender holds a dashboard send to the role table: the signed-in
// person must still be allowed to send, and urgent alerts are for head
// coaches and team directors. It reports whether the sender could approve
// the send themself. Other sources were checked where they began (the
// key's gate, the campaign's creation).
func (s *Service) checkSender(ctx context.Context, snd *Sender) (approver bool, err error) {
	if snd.Source != domain.SourceDashboard {
		return false, nil
	}
	m, err := s.Members.Member(ctx, snd.TeamID, snd.MemberID)
	if err != nil {
		return false, err
	}
	if !m.May(rosterapi.PermSend) {
		return false, fault.New(fault.Forbidden, fault.CodeForbidden, "your role may not send broadcasts")
	}
	snd.AllowUrgent = m.May(rosterapi.PermUrgent)
	return m.May(rosterapi.PermApprove), nil
}

func checkAudience(audience, groupID string) error {
	a, err := messagingapi.ParseAudience(audience)
	if err != nil {
		return fault.Invalidf("%v", err)
	}
	if a == messagingapi.AudienceGroup && groupID == "" {
		return fault.New(fault.Invalid, rosterapi.CodeInvalidGroup, "audience group needs group_id")
	}
	if a != messagingapi.AudienceGroup && groupID != "" {
		return fault.New(fault.Invalid, rosterapi.CodeInvalidGroup, "group_id goes with audience group only")
	}
	return nil
}

// dedupe gives one text per phone: a number on the roster twice (a parent
// of two athletes) gets the broadcast once; the delivery lists every
// roster entry it reached.
func dedupe(rs []rosterapi.Recipient) ([]string, map[string][]string) {
	byPhone := map[string][]string{}
	var phones []string
	for _, r := range rs {
		if _, ok := byPhone[string(r.Phone)]; !ok {
			phones = append(phones, string(r.Phone))
		}
		byPhone[string(r.Phone)] = append(byPhone[string(r.Phone)], r.MemberID)
	}
	for _, ids := range byPhone {
		sort.Strings(ids)
	}
	return phones, byPhone
}

// Estimate is POST /messages/estimate: the same checks, nothing sent, and
// when the last text would reach the carrier if it were sent now.
func (s *Service) Estimate(ctx context.Context, snd Sender, in SendInput) (*Plan, error) {
	p, err := s.prepare(ctx, snd, in, true)
	if err != nil {
		return nil, err
	}
	est, err := s.Outbound.Completion(ctx, p.Team, p.Phones, p.Segments, p.Urgent)
	if err != nil {
		return nil, err
	}
	p.Completion, p.Held = est.Finish, est.Held
	return p, nil
}

// Outcome is what a send produced: a message or a scheduled send.
type Outcome struct {
	Message   *domain.Message
	Scheduled *domain.Scheduled
}

// Send is the one way a broadcast enters messaging, whatever its source:
// POST /messages, the dashboard's Compose, a scheduled occurrence, a
// campaign step and a resend all come here, so that each meets the same
// checks, approval policy, credits, planning and events. In the caller's
// transaction, or one of its own: a scheduled send (row + job at its
// time), a message awaiting approval (+ its expiry job), or a queued
// message with one delivery per recipient phone and its fan-out planned.
func (s *Service) Send(ctx context.Context, snd Sender, in SendInput) (*Outcome, error) {
	var out *Outcome
	err := s.DB.Tx(ctx, func(ctx context.Context) error {
		p, err := s.prepare(ctx, snd, in, in.ScheduledFor == "")
		if err != nil {
			return err
		}
		if p.ScheduledFor != nil {
			sch, err := s.schedule(ctx, snd, in, p)
			out = &Outcome{Scheduled: sch}
			return err
		}
		m, err := s.createMessage(ctx, snd, in, p)
		out = &Outcome{Message: m}
		return err
	})
	return out, err
}

// createMessage stores a message and, unless it awaits approval, dispatches it.
func (s *Service) createMessage(ctx context.Context, snd Sender, in SendInput, p *Plan) (*domain.Message, error) {
	now := s.Clock.Now().UTC()
	msg, err := domain.NewMessage(domain.Message{ID: id.New("msg"), TeamID: snd.TeamID, KeyID: snd.KeyID, MemberID: snd.MemberID,
		Source: snd.Source, Audience: in.Audience, GroupID: in.GroupID, TemplateID: p.TemplateID, ScheduledID: in.ScheduledID, Text: p.Text,
		Rendered: p.Sample, Encoding: string(p.Encoding), Segments: p.Segments, Urgent: p.Urgent, CreatedAt: now, Credits: p.Credits,
		SkippedUndeliverable: p.SkippedUndeliverable, ResendOf: in.ResendOf, ReplyOptions: p.ReplyOptions, ReplyUntil: p.ReplyUntil},
		len(p.Phones), p.ApprovalRequired)
	if err != nil {
		return nil, err
	}
	m := &msg
	if err := s.MessageStore.InsertMessage(ctx, m); err != nil {
		return nil, err
	}
	if m.Status == domain.StatusPendingApproval {
		_, err := s.Jobs.Insert(ctx, ExpireArgs{MessageID: m.ID}, &river.InsertOpts{ScheduledAt: now.Add(domain.ApprovalExpiry)})
		return m, err
	}
	return m, s.dispatch(ctx, m, p)
}

// dispatch consumes the send's credits, plans its texts on the team's
// sending numbers (outbound), writes one delivery per phone, and the job
// that marks deliveries still unconfirmed after the timeout, all in the
// caller's transaction. It returns when the last text is planned to reach
// the carrier.
func (s *Service) dispatch(ctx context.Context, m *domain.Message, p *Plan) error {
	if err := s.Billing.Consume(ctx, m.TeamID, m.ID, p.Credits); err != nil {
		return err
	}
	now := s.Clock.Now().UTC()
	n := len(p.Phones)
	members := make([][]string, n)
	for i, ph := range p.Phones {
		members[i] = p.MemberIDs[ph]
	}
	planned, err := s.Outbound.Plan(ctx, outbound.SendPlan{Team: p.Team, MessageID: m.ID, Phones: p.Phones, Segments: m.Segments, Urgent: m.Urgent})
	if err != nil {
		return err
	}
	done := planned.Finish
	if n > 0 {
		m.EstimatedCompletion = &done
	}
	var held []time.Time // by position: when each held text's slot is due
	if len(planned.Held) > 0 {
		held = make([]time.Time, n)
		for _, h := range planned.Held {
			held[h.Seq-1] = h.Until
		}
		m.HeldForQuietHours, m.HeldNow = len(planned.Held), len(planned.Held)
	}
	if err := s.MessageStore.InsertQueued(ctx, m.TeamID, m.ID, now, done, id.NewSeries("dlv"), p.Phones, members, p.Texts, held); err != nil {
		return err
	}
	if m.Poll() && n > 0 { // the numbers the poll went to, for the inbound poll step
		entries := 0
		for _, ids := range members {
			entries += len(ids)
		}
		if err := s.MessageStore.RecordPollRecipients(ctx, m.TeamID, m.ID, now, *m.ReplyUntil, entries); err != nil {
			return err
		}
	}
	if err := s.MessageStore.CountBroadcast(ctx, m, n, now); err != nil { // analytics: per-day counters (inbound package)
		return err
	}
	_, err = s.Jobs.Insert(ctx, ingest.UnconfirmArgs{MessageID: m.ID}, &river.InsertOpts{ScheduledAt: now.Add(ingest.UnconfirmedAfter)})
	return err
}

func (s *Service) schedule(ctx context.Context, snd Sender, in SendInput, p *Plan) (*domain.Scheduled, error) {
	n, err := s.ScheduledStore.CountPendingScheduled(ctx, snd.TeamID)
	if err != nil {
		return nil, err
	}
	if err := domain.CheckScheduledRoom(n); err != nil {
		return nil, err
	}
	req := in
	req.ScheduledFor, req.Repeat = "", nil
	if p.ReplyUntil != nil { // each occurrence is open as long as the first; the options as stored (upper-case)
		req.ReplyOptions, req.ReplyUntil, req.ReplyWindowSeconds = p.ReplyOptions, "", int64(p.ReplyUntil.Sub(*p.ScheduledFor)/time.Second)
	}
	raw, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	now := s.Clock.Now().UTC()
	scheduled := domain.NewScheduled(id.New("sch"), snd.TeamID, snd.KeyID, snd.MemberID, raw, *p.ScheduledFor, p.RepeatUntil, now)
	sch := &scheduled
	if err := s.ScheduledStore.InsertScheduled(ctx, sch); err != nil {
		return nil, err
	}
	_, err = s.Jobs.Insert(ctx, ScheduledArgs{ScheduledID: sch.ID, Run: 0}, &river.InsertOpts{ScheduledAt: sch.ScheduledFor})
	return sch, err
}
