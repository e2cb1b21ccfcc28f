package inbound

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/phone"
)

// Args is one text a carrier received for a team number, as staged and
// filed; also the ingestion job of versions before staging (one text).
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

// ReceivedFrom renders a stored text as message.received data.
func ReceivedFrom(in *domain.Inbound) messagingapi.Received {
	r := messagingapi.Received{MessageID: in.ID, ProviderMessageID: in.ProviderMessageID, From: in.FromPhone, To: in.ToPhone, Body: in.Body,
		ReceivedAt: in.ReceivedAt.UTC().Format(time.RFC3339Nano)}
	if in.Keyword != "" {
		k := string(in.Keyword)
		r.Keyword = &k
	}
	if in.GroupID != "" {
		g := in.GroupID
		r.GroupID = &g
	}
	if in.Member.ID != "" {
		r.Member = &messagingapi.MemberRef{ID: in.Member.ID, Name: in.Member.Name, Role: in.Member.Role}
	}
	return r
}

// e164 normalises a carrier's number; one that is not a valid US number
// (a short code, a foreign sender) is kept as the carrier wrote it.
func e164(s string) string { return phone.Normalize(s) }

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

// Receive files one text now, in one transaction (the caller's, if ctx
// carries one): File with a batch of one. The ingestion job of versions
// before staging (Args) ends with it.
func (s *Service) Receive(ctx context.Context, a Args) error {
	return s.File(ctx, []Args{a})
}

// act carries out a keyword. Roster keeps every keyword text, HELP
// included, in the number's consent history, in this transaction.
func (s *Service) act(ctx context.Context, team rosterapi.Team, in *domain.Inbound) error {
	kw := in.Keyword
	if kw == "" {
		return nil
	}
	changed, err := s.Keywords.Keyword(ctx, rosterapi.KeywordText{TeamID: team.ID, Phone: phone.Number(in.FromPhone), Keyword: string(kw),
		Body: in.Body, MessageID: in.ID, MemberID: in.Member.ID, At: in.ReceivedAt})
	if err != nil {
		return fmt.Errorf("inbound %s: %w", kw, err)
	}
	switch kw {
	case domain.KeywordStop:
		s.Log.Info("opted out by text", "team_id", team.ID, "from", phone.Mask(in.FromPhone))
	case domain.KeywordStart:
		s.Log.Info("start by text", "team_id", team.ID, "from", phone.Mask(in.FromPhone), "was_opted_out", changed)
	case domain.KeywordHelp:
		return s.Help.QueueHelp(ctx, team, in)
	}
	return nil
}
