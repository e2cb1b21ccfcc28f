package inbound

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/phone"
)

// ReplyArgs hands one reply to the carrier.
type ReplyArgs struct {
	TeamID  string `json:"team_id"`
	ReplyID string `json:"reply_id"`
}

// Kind names the job.
func (ReplyArgs) Kind() string { return "messaging.reply" }

// InsertOpts puts the job in Queue.
func (ReplyArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: Queue} }

// ReplyDeps are the replies' collaborators: staff replies, HELP answers,
// the team's HELP text, and the job that hands a reply to the carrier.
type ReplyDeps struct {
	Tx    Transactor
	Jobs  Inserter
	Store ReplyStore
	// Inbox finds the item a staff reply answers and records the reply on it.
	Inbox   InboxStore
	Clock   clock.Clock
	Teams   rosterapi.Teams
	Members rosterapi.Members
	// Lookup knows the team's custom fields (merge tags are refused).
	Lookup  rosterapi.Lookup
	OptOuts rosterapi.OptOuts
	Billing billingapi.Accounts
	Carrier carrier.Carrier
	Log     *slog.Logger
}

// Replies runs the reply use cases: texts to one person in answer to an
// inbound text, and the team's HELP text.
type Replies struct{ ReplyDeps }

var (
	_ HelpReplier = (*Replies)(nil)
	_ Answerer    = (*Replies)(nil)
)

// NewReplies returns the replies.
func NewReplies(d ReplyDeps) *Replies { return &Replies{ReplyDeps: d} }

// Settings are a team's messaging settings.
type Settings struct {
	HelpText        string // what HELP answers (the default when not set)
	HelpTextDefault bool   // whether HelpText is the default
}

// Settings returns a team's messaging settings.
func (s *Replies) Settings(ctx context.Context, teamID string) (*Settings, error) {
	team, err := s.Teams.Team(ctx, teamID)
	if err != nil {
		return nil, err
	}
	text, err := s.Store.HelpText(ctx, teamID)
	if err != nil {
		return nil, err
	}
	return &Settings{HelpText: domain.HelpText(text, team.Name), HelpTextDefault: text == ""}, nil
}

// SetHelpText sets a team's HELP reply: nil leaves it as it is, "" restores
// the default.
func (s *Replies) SetHelpText(ctx context.Context, teamID string, text *string) (*Settings, error) {
	if _, err := s.Teams.Team(ctx, teamID); err != nil {
		return nil, err
	}
	if text != nil {
		t, err := domain.ValidHelpText(*text)
		if err != nil {
			return nil, err
		}
		if err := s.Store.SetHelpText(ctx, teamID, t, s.Clock.Now().UTC()); err != nil {
			return nil, err
		}
	}
	return s.Settings(ctx, teamID)
}

// QueueHelp records the HELP reply to in's sender and its send job, in the
// caller's transaction. It is a compliance answer, not a broadcast: sent
// even while the renewal is overdue, and not charged as credits.
func (s *Replies) QueueHelp(ctx context.Context, team rosterapi.Team, in *domain.Inbound) error {
	text, err := s.Store.HelpText(ctx, team.ID)
	if err != nil {
		return err
	}
	return s.queue(ctx, domain.NewHelpReply(id.New("rpl"), in, domain.HelpText(text, team.Name), s.Clock.Now().UTC()))
}

// QueueAnswer records an automatic answer of kind to in's sender (a
// sign-up step's, domain.ReplyJoin) and its send job, in the caller's
// transaction. Like a HELP answer it is not a broadcast: sent from the
// number texted even while the renewal is overdue, and not charged.
func (s *Replies) QueueAnswer(ctx context.Context, in *domain.Inbound, kind, body string) error {
	return s.queue(ctx, domain.NewAnswer(id.New("rpl"), kind, in, body, s.Clock.Now().UTC()))
}

// SendText queues a text the service sends one person for a team (a
// dashboard sign-in code), in the caller's transaction, from the team's
// number. Like a HELP answer it is not a broadcast: not charged, sent
// while a renewal is overdue; a number that texted STOP is not texted.
func (s *Replies) SendText(ctx context.Context, r messagingapi.Text) error {
	opted, err := s.OptOuts.IsOptedOut(ctx, r.TeamID, r.To)
	if err != nil || opted {
		return err
	}
	return s.queue(ctx, domain.NewServiceText(id.New("rpl"), r.TeamID, string(r.To), r.Body, s.Clock.Now().UTC()))
}

func (s *Replies) queue(ctx context.Context, rp *domain.Reply) error {
	if err := s.Store.InsertReply(ctx, rp); err != nil {
		return err
	}
	if _, err := s.Jobs.Insert(ctx, ReplyArgs{TeamID: rp.TeamID, ReplyID: rp.ID}, nil); err != nil {
		return err
	}
	return nil
}

// ReplyInput is a staff reply from the dashboard.
type ReplyInput struct {
	TeamID    string
	MessageID string // the inbox item answered
	MemberID  string // the staff member replying
	Body      string
}

// canReply reports whether a roster entry may reply from the dashboard:
// active, unblocked staff.
func canReply(m rosterapi.Member) bool {
	return m.Role.IsStaff() && !m.IsBlocked && m.Status == "active"
}

// Reply sends a staff member's answer to the one person who sent an inbox
// item, in one transaction: the reply is recorded, the item's replied_at
// (first reply) and latest reply are set and it is marked read, the credits
// are consumed, and the send job is queued. The text is "<team name>: "
// followed by the body. Refusals: 404 not_found (no such inbox item on the
// team; held and keyword texts are not inbox items), 403 forbidden (member
// is not active, unblocked staff), 400 invalid_request (empty or too long
// body; merge_tags_unsupported), 409 no_sender, 402 payment_required (renewal
// overdue) or trial_limit, 409 opted_out (the number texted STOP).
func (s *Replies) Reply(ctx context.Context, r ReplyInput) (*domain.Inbound, error) {
	var out *domain.Inbound
	err := s.Tx.Tx(ctx, func(ctx context.Context) error {
		staff, err := s.Members.Member(ctx, r.TeamID, r.MemberID)
		if err != nil {
			return err
		}
		if !canReply(staff) {
			return fault.New(fault.Forbidden, fault.CodeForbidden, "only active staff (head coach, team director, coach, board member) can reply")
		}
		in, err := s.Inbox.LockInboxItem(ctx, r.TeamID, r.MessageID)
		if errors.Is(err, domain.ErrNotFound) {
			return errTextNotFound
		}
		if err != nil {
			return err
		}
		body, err := domain.ValidText(r.Body)
		if err != nil {
			return err
		}
		fields, err := s.Lookup.CustomFieldKeys(ctx, r.TeamID)
		if err != nil {
			return err
		}
		if err := domain.CheckMergeTags(body, fields); err != nil {
			return err
		}
		team, err := s.Teams.Team(ctx, r.TeamID)
		if err != nil {
			return err
		}
		if team.Number == "" {
			return fault.New(fault.Conflict, CodeNoSender, "the team has no phone number to send from")
		}
		acc, err := s.Billing.Status(ctx, r.TeamID)
		if err != nil {
			return err
		}
		if acc.PaymentState == billingapi.PaymentOverdue {
			return fault.New(fault.PaymentRequired, CodePaymentRequired, "sending is paused until the overdue renewal is paid")
		}
		opted, err := s.OptOuts.IsOptedOut(ctx, r.TeamID, phone.Number(in.FromPhone))
		if err != nil {
			return err
		}
		if opted {
			return fault.New(fault.Conflict, CodeOptedOut, "the number texted STOP; it cannot be texted until it texts START")
		}
		rp := domain.NewStaffReply(id.New("rpl"), in, staff.ID, team.Name, body, s.Clock.Now().UTC())
		if err := s.Billing.Consume(ctx, r.TeamID, rp.ID, rp.Segments); err != nil {
			return err
		}
		if err := s.queue(ctx, rp); err != nil {
			return err
		}
		if err := s.Inbox.SetLatestReply(ctx, r.TeamID, in.ID, rp); err != nil {
			return err
		}
		out, err = s.Inbox.InboxItem(ctx, r.TeamID, in.ID)
		return err
	})
	return out, err
}

// SendReply is the reply job's work: it hands a queued reply to the carrier
// from the team's number, outside any transaction (like a broadcast's
// fan-out), with the reply id as the idempotency key. A permanent refusal
// marks it failed; other errors retry the job. Replies are not deliveries:
// the carrier's later status reports for them are not tracked.
func (s *Replies) SendReply(ctx context.Context, a ReplyArgs) error {
	rp, err := s.Store.ReplyForSend(ctx, a.TeamID, a.ReplyID)
	if errors.Is(err, domain.ErrNotFound) {
		s.Log.Warn("reply not found; job dropped", "reply_id", a.ReplyID)
		return nil
	}
	if err != nil {
		return err
	}
	if !rp.Pending() {
		return nil
	}
	team, err := s.Teams.Team(ctx, rp.TeamID)
	if err != nil {
		return err
	}
	if team.Number == "" {
		rp.Fail(CodeNoSender)
		return s.Store.UpdateReply(ctx, rp)
	}
	rc, err := s.Carrier.Send(ctx, carrier.Message{DeliveryID: rp.ID, TeamID: rp.TeamID, From: string(team.Number), To: rp.ToPhone,
		Body: rp.Body, Segments: rp.Segments})
	if pe, ok := carrier.IsPermanent(err); ok {
		s.Log.Warn("reply refused by the carrier", "reply_id", rp.ID, "to", phone.Mask(rp.ToPhone), "code", pe.Code)
		rp.Fail(pe.Code)
		return s.Store.UpdateReply(ctx, rp)
	}
	if err != nil {
		return fmt.Errorf("send reply %s: %w", rp.ID, err)
	}
	rp.Sent(rc.ProviderMessageID, s.Clock.Now().UTC())
	return s.Store.UpdateReply(ctx, rp)
}
