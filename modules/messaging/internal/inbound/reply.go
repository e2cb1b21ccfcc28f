package inbound

import (
	"context"

	"errors"
	"fmt"
	"github.com/riverqueue/river"
	"strings"
	"unicode/utf8"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/phone"
)

// Reply kinds and statuses.
const (
	ReplyHelp  = "help"  // the automatic answer to HELP
	ReplyStaff = "staff" // a staff member's answer from the dashboard

	ReplyQueued = "queued"
	ReplySent   = "sent"   // handed to the carrier
	ReplyFailed = "failed" // refused by the carrier for good
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

// MaxHelpTextRunes bounds a team's HELP reply (three GSM-7 segments).
const MaxHelpTextRunes = 459

// DefaultHelpText is the CTIA HELP reply a team gets unless it set its own:
// the team name, what the texts are, "Msg & data rates may apply" and how to
// opt out.
func DefaultHelpText(teamName string) string {
	return teamName + ": texts from your team's coaches and staff. Msg frequency varies. Msg & data rates may apply. Reply STOP to opt out."
}

// ValidHelpText checks a team's own HELP reply: not blank, at most
// MaxHelpTextRunes characters, and it must say how to opt out (contain the
// word STOP, in any case). "" is valid and means the default.
func ValidHelpText(text string) (string, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", nil
	}
	if utf8.RuneCountInString(text) > MaxHelpTextRunes {
		return "", fault.Invalidf("help_text must be at most %d characters", MaxHelpTextRunes)
	}
	if !strings.Contains(strings.ToLower(text), "stop") {
		return "", fault.Invalidf(`help_text must tell how to opt out, e.g. "Reply STOP to opt out."`)
	}
	return text, nil
}

// Settings are a team's messaging settings.
type Settings struct {
	HelpText        string // what HELP answers (the default when not set)
	HelpTextDefault bool   // whether HelpText is the default
}

// Settings returns a team's messaging settings.
func (s *Service) Settings(ctx context.Context, teamID string) (*Settings, error) {
	team, err := s.Teams.Team(ctx, teamID)
	if err != nil {
		return nil, err
	}
	text, err := s.ReplyStore.HelpText(ctx, teamID)
	if err != nil {
		return nil, err
	}
	if text == "" {
		return &Settings{HelpText: DefaultHelpText(team.Name), HelpTextDefault: true}, nil
	}
	return &Settings{HelpText: text}, nil
}

// SetHelpText sets a team's HELP reply: nil leaves it as it is, "" restores
// the default.
func (s *Service) SetHelpText(ctx context.Context, teamID string, text *string) (*Settings, error) {
	if _, err := s.Teams.Team(ctx, teamID); err != nil {
		return nil, err
	}
	if text != nil {
		t, err := ValidHelpText(*text)
		if err != nil {
			return nil, err
		}
		if err := s.ReplyStore.SetHelpText(ctx, teamID, t, s.Clock.Now().UTC()); err != nil {
			return nil, err
		}
	}
	return s.Settings(ctx, teamID)
}

// queueHelp records the HELP reply to in's sender and its send job. It is
// a compliance answer, not a broadcast: sent even while the renewal is
// overdue, and not charged as credits.
func (s *Service) queueHelp(ctx context.Context, team rosterapi.Team, in *postgres.Inbound) error {
	text, err := s.ReplyStore.HelpText(ctx, team.ID)
	if err != nil {
		return err
	}
	if text == "" {
		text = DefaultHelpText(team.Name)
	}
	rp := &postgres.Reply{ID: id.New("rpl"), TeamID: team.ID, InboundID: in.ID, Kind: ReplyHelp, ToPhone: in.FromPhone, Body: text,
		Segments: domain.Segments(text).Segments, Status: ReplyQueued, CreatedAt: s.Clock.Now().UTC()}
	return s.queueReply(ctx, rp)
}

func (s *Service) queueReply(ctx context.Context, rp *postgres.Reply) error {
	if err := s.ReplyStore.InsertReply(ctx, rp); err != nil {
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

// Reply sends a staff member's answer to the one person who sent an inbox
// item, in one transaction: the reply is recorded, the item's replied_at
// (first reply) and latest reply are set and it is marked read, the credits
// are consumed, and the send job is queued. The text is "<team name>: "
// followed by the body. Refusals: 404 not_found (no such inbox item on the
// team; held and keyword texts are not inbox items), 403 forbidden (member
// is not active, unblocked staff), 400 invalid_request (empty or too long
// body; merge_tags_unsupported), 409 no_sender, 402 payment_required (renewal
// overdue) or trial_limit, 409 opted_out (the number texted STOP).
func (s *Service) Reply(ctx context.Context, r ReplyInput) (*postgres.Inbound, error) {
	var out *postgres.Inbound
	err := s.DB.Tx(ctx, func(ctx context.Context) error {
		staff, err := s.Members.Member(ctx, r.TeamID, r.MemberID)
		if err != nil {
			return err
		}
		if !staff.Role.IsStaff() || staff.IsBlocked || staff.Status != "active" {
			return fault.New(fault.Forbidden, fault.CodeForbidden, "only active staff (head coach, team director, coach, board member) can reply")
		}
		in, err := s.InboxStore.InboxItem(ctx, r.TeamID, r.MessageID, true)
		if errors.Is(err, postgres.ErrNotFound) {
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
		opted, err := s.OptOuts.IsOptedOut(ctx, r.TeamID, in.FromPhone)
		if err != nil {
			return err
		}
		if opted {
			return fault.New(fault.Conflict, CodeOptedOut, "the number texted STOP; it cannot be texted until it texts START")
		}
		text := domain.Prefix(team.Name) + body
		rp := &postgres.Reply{ID: id.New("rpl"), TeamID: r.TeamID, InboundID: in.ID, Kind: ReplyStaff, MemberID: staff.ID,
			ToPhone: in.FromPhone, Body: text, Segments: domain.Segments(text).Segments, Status: ReplyQueued, CreatedAt: s.Clock.Now().UTC()}
		if err := s.Billing.Consume(ctx, r.TeamID, rp.ID, rp.Segments); err != nil {
			return err
		}
		if err := s.queueReply(ctx, rp); err != nil {
			return err
		}
		if err := s.InboxStore.SetLatestReply(ctx, r.TeamID, in.ID, rp); err != nil {
			return err
		}
		out, err = s.InboxStore.InboxItem(ctx, r.TeamID, in.ID, false)
		return err
	})
	return out, err
}

// SendReply is the reply job's work: it hands a queued reply to the carrier
// from the team's number, outside any transaction (like a broadcast's
// fan-out), with the reply id as the idempotency key. A permanent refusal
// marks it failed; other errors retry the job. Replies are not deliveries:
// the carrier's later status reports for them are not tracked.
func (s *Service) SendReply(ctx context.Context, a ReplyArgs) error {
	rp, err := s.ReplyStore.ReplyForSend(ctx, a.TeamID, a.ReplyID)
	if errors.Is(err, postgres.ErrNotFound) {
		s.Log.Warn("reply not found; job dropped", "reply_id", a.ReplyID)
		return nil
	}
	if err != nil {
		return err
	}
	if rp.Status != ReplyQueued {
		return nil
	}
	team, err := s.Teams.Team(ctx, rp.TeamID)
	if err != nil {
		return err
	}
	if team.Number == "" {
		rp.Status, rp.ErrorCode = ReplyFailed, CodeNoSender
		return s.ReplyStore.UpdateReply(ctx, rp)
	}
	rc, err := s.Carrier.Send(ctx, carrier.Message{DeliveryID: rp.ID, TeamID: rp.TeamID, From: team.Number, To: rp.ToPhone,
		Body: rp.Body, Segments: rp.Segments})
	if pe, ok := carrier.IsPermanent(err); ok {
		s.Log.Warn("reply refused by the carrier", "reply_id", rp.ID, "to", phone.Mask(rp.ToPhone), "code", pe.Code)
		rp.Status, rp.ErrorCode = ReplyFailed, pe.Code
		return s.ReplyStore.UpdateReply(ctx, rp)
	}
	if err != nil {
		return fmt.Errorf("send reply %s: %w", rp.ID, err)
	}
	now := s.Clock.Now().UTC()
	rp.Status, rp.ProviderMessageID, rp.SentAt = ReplySent, rc.ProviderMessageID, &now
	return s.ReplyStore.UpdateReply(ctx, rp)
}
