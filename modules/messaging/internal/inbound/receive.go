package inbound

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/phone"
)

// Args is the inbound ingestion job: one text a carrier received for a
// team number. Carrier adapters build it from their callback.
type Args struct {
	From              string    `json:"from"`                               // the sender, E.164
	To                string    `json:"to"`                                 // the team number texted, E.164
	Body              string    `json:"body"`                               // the text as received
	ProviderMessageID string    `json:"provider_message_id" river:"unique"` // the carrier's id: the dedupe key
	ReceivedAt        time.Time `json:"received_at"`                        // when the carrier called back
}

// Kind names the job.
func (Args) Kind() string { return "messaging.inbound" }

// InsertOpts makes a retried callback that is still (or recently) queued
// insert no second job; the table's unique provider id covers the rest.
func (Args) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Queue, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// Enqueue hands a text a carrier received to the ingestion job. It joins the
// transaction carried by ctx, or runs its own. Carrier adapters call it from
// their inbound callback and answer the carrier as soon as it returns: the
// work (storing, matching, keywords, the event) happens in the job.
func Enqueue(ctx context.Context, d *db.DB, j *jobs.Jobs, a Args) error {
	if a.ProviderMessageID == "" || a.From == "" || a.To == "" {
		return errors.New("inbound: from, to and provider_message_id are required")
	}
	if a.ReceivedAt.IsZero() {
		return errors.New("inbound: received_at is required")
	}
	return d.Tx(ctx, func(ctx context.Context) error {
		_, err := j.Insert(ctx, a, nil)
		return err
	})
}

// MemberRef is the member object of message.received.
type MemberRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Role string `json:"role"`
}

// Received is the data of the message.received event (spec §6), exactly
// its fields.
type Received struct {
	MessageID         string     `json:"message_id"`
	ProviderMessageID string     `json:"provider_message_id"`
	From              string     `json:"from"`
	To                string     `json:"to"`
	Body              string     `json:"body"`
	Keyword           *string    `json:"keyword"`
	GroupID           *string    `json:"group_id"`
	Member            *MemberRef `json:"member"`
	ReceivedAt        string     `json:"received_at"`
}

// ReceivedFrom renders a stored text as message.received data.
func ReceivedFrom(in *postgres.Inbound) Received {
	r := Received{MessageID: in.ID, ProviderMessageID: in.ProviderMessageID, From: in.FromPhone, To: in.ToPhone, Body: in.Body,
		ReceivedAt: in.ReceivedAt.UTC().Format(time.RFC3339Nano)}
	if in.Keyword != "" {
		k := in.Keyword
		r.Keyword = &k
	}
	if in.GroupID != "" {
		g := in.GroupID
		r.GroupID = &g
	}
	if in.MemberID != "" {
		r.Member = &MemberRef{ID: in.MemberID, Name: in.MemberName, Role: in.MemberRole}
	}
	return r
}

// e164 normalises a carrier's number; one that is not a valid US number
// (a short code, a foreign sender) is kept as the carrier wrote it.
func e164(s string) string {
	if n, err := phone.Parse(s); err == nil {
		return n.String()
	}
	return s
}

// chooseMember picks the roster entry a text is from: the oldest active
// entry, else the oldest entry (entries come oldest first).
func chooseMember(entries []rosterapi.Member) *rosterapi.Member {
	for i := range entries {
		if entries[i].Status == "active" {
			return &entries[i]
		}
	}
	if len(entries) > 0 {
		return &entries[0]
	}
	return nil
}

// Receive is the ingestion job's work, in one transaction: see the package
// documentation for what it does and decides.
func (s *Service) Receive(ctx context.Context, a Args) error {
	return s.DB.Tx(ctx, func(ctx context.Context) error {
		from, to := e164(a.From), e164(a.To)
		team, err := s.Lookup.TeamByNumber(ctx, to)
		if f, ok := fault.As(err); ok && f.Kind == fault.NotFound {
			s.Log.Warn("inbound text to an unknown number dropped", "to", phone.Mask(to), "from", phone.Mask(from),
				"provider_message_id", a.ProviderMessageID)
			return nil
		}
		if err != nil {
			return fmt.Errorf("inbound team: %w", err)
		}
		// Shared with other texts of the team, exclusive with a release:
		// a text is either seen held by the release or sees the paid account.
		if err := s.Repo.LockHold(ctx, team.ID, false); err != nil {
			return err
		}
		acc, err := s.Billing.Status(ctx, team.ID)
		if err != nil {
			return fmt.Errorf("inbound billing: %w", err)
		}
		entries, err := s.Lookup.MembersByPhone(ctx, team.ID, from)
		if err != nil {
			return fmt.Errorf("inbound member: %w", err)
		}
		groupID, err := s.Repo.LatestGroupTo(ctx, team.ID, from)
		if err != nil {
			return err
		}
		now := s.Clock.Now().UTC()
		at := a.ReceivedAt
		if at.IsZero() {
			at = now
		}
		kw := MatchKeyword(a.Body)
		in := &postgres.Inbound{ID: id.New("inb"), TeamID: team.ID, ProviderMessageID: a.ProviderMessageID, FromPhone: from, ToPhone: to,
			Body: a.Body, Keyword: string(kw), GroupID: groupID, ReceivedAt: at.UTC().Truncate(time.Microsecond),
			Held: acc.PaymentState == billingapi.PaymentOverdue, CreatedAt: now}
		if m := chooseMember(entries); m != nil {
			in.MemberID, in.MemberName, in.MemberRole = m.ID, m.Name, string(m.Role)
		}
		stored, err := s.Repo.InsertInbound(ctx, in)
		if err != nil {
			return err
		}
		if !stored {
			s.Log.Info("inbound text already received; retry ignored", "provider_message_id", a.ProviderMessageID)
			return nil
		}
		if err := s.heardFrom(ctx, team.ID, from); err != nil {
			return err
		}
		if err := s.act(ctx, team, in, kw); err != nil {
			return err
		}
		if in.Held {
			s.Log.Info("inbound text held: renewal payment overdue", "team_id", team.ID, "message_id", in.ID)
			return nil
		}
		return announce(ctx, s.Repo, s.Events, in)
	})
}

// act carries out a keyword. Roster keeps every keyword text, HELP
// included, in the number's consent history, in this transaction.
func (s *Service) act(ctx context.Context, team rosterapi.Team, in *postgres.Inbound, kw Keyword) error {
	if kw == "" {
		return nil
	}
	changed, err := s.Keywords.Keyword(ctx, rosterapi.KeywordText{TeamID: team.ID, Phone: in.FromPhone, Keyword: string(kw),
		Body: in.Body, MessageID: in.ID, MemberID: in.MemberID, At: in.ReceivedAt})
	if err != nil {
		return fmt.Errorf("inbound %s: %w", kw, err)
	}
	switch kw {
	case KeywordStop:
		s.Log.Info("opted out by text", "team_id", team.ID, "from", phone.Mask(in.FromPhone))
	case KeywordStart:
		s.Log.Info("start by text", "team_id", team.ID, "from", phone.Mask(in.FromPhone), "was_opted_out", changed)
	case KeywordHelp:
		return s.queueHelp(ctx, team, in)
	}
	return nil
}

// announce makes a visible text count in analytics and publishes
// message.received, in the caller's transaction.
func announce(ctx context.Context, repo *postgres.Repo, pub events.Publisher, in *postgres.Inbound) error {
	if err := repo.CountReceived(ctx, in); err != nil {
		return err
	}
	if err := pub.Publish(ctx, events.Event{TeamID: in.TeamID, Type: events.MessageReceived, Data: ReceivedFrom(in)}); err != nil {
		return fmt.Errorf("publish message.received: %w", err)
	}
	return nil
}
