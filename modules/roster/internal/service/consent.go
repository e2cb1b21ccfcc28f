// The consent record: each member's consent (source, at,
// evidence), and every number's consent history — consent given when a
// member is added, every STOP, START and HELP text, every opt-out recorded
// through the API or by support — each history row written in the
// transaction of the change it records.

package service

import (
	"context"
	"fmt"
	"time"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
)

// keywordEvidenceMax bounds the text kept from an inbound keyword text (a
// keyword with any amount of spaces and punctuation around it).
const keywordEvidenceMax = 160

// consentRef is what a history row knows beyond the team and the number.
type consentRef struct {
	memberID, messageID, evidence string
	at                            time.Time // when it happened; zero: when it was recorded
}

// historyRow builds one consent history row.
func historyRow(teamID, phone, kind, channel string, changed bool, ref consentRef, now time.Time) domain.ConsentEvent {
	e := domain.ConsentEvent{ID: id.New("cev"), TeamID: teamID, Phone: phone, Kind: kind, Channel: channel, Changed: changed,
		MemberID: optional(ref.memberID), MessageID: optional(ref.messageID), Evidence: optional(ref.evidence), At: ref.at, RecordedAt: now}
	if e.At.IsZero() {
		e.At = now
	}
	return e
}

// consentGiven is the history row of a member added with consent c.
func consentGiven(m *domain.Member, channel string, c domain.Consent, now time.Time) domain.ConsentEvent {
	e := historyRow(m.TeamID, m.Phone, domain.HistoryConsentGiven, channel, true,
		consentRef{memberID: m.ID, evidence: c.Evidence, at: c.At}, now)
	e.Source = optional(c.Source)
	return e
}

// setConsent stores c on m.
func setConsent(m *domain.Member, c domain.Consent) {
	at := c.At
	m.ConsentSource, m.ConsentAt, m.ConsentEvidence = optional(c.Source), &at, optional(c.Evidence)
}

// optOutChannel is the history channel of an opt-out source.
func optOutChannel(source string) string {
	switch source {
	case SourceSMS:
		return domain.ChannelSMS
	case SourceSupport:
		return domain.ChannelAdmin
	}
	return domain.ChannelAPI
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Keyword implements rosterapi.Keywords: an inbound STOP, START or HELP,
// carried out and kept in the number's history in the caller's transaction.
func (s *Service) Keyword(ctx context.Context, k rosterapi.KeywordText) (bool, error) {
	ref := consentRef{memberID: k.MemberID, messageID: k.MessageID, at: k.At.UTC(),
		evidence: domain.TruncateText(k.Body, keywordEvidenceMax)}
	switch k.Keyword {
	case "stop":
		r, err := s.optOut(ctx, k.TeamID, string(k.Phone), SourceSMS, true, ref)
		if err != nil {
			return false, err
		}
		// STOP ends a sign-up by text half-way.
		if err := s.stopJoining(ctx, k.TeamID, string(k.Phone)); err != nil {
			return false, err
		}
		return r.New, nil
	case "start":
		return s.optIn(ctx, k.TeamID, string(k.Phone), ref)
	case "help":
		err := s.db.Tx(ctx, func(ctx context.Context) error {
			return s.st.Consent.InsertConsentEvents(ctx, []domain.ConsentEvent{
				historyRow(k.TeamID, string(k.Phone), domain.HistoryHelp, domain.ChannelSMS, false, ref, s.clock.Now().UTC())})
		})
		return false, err
	}
	return false, fmt.Errorf("consent: unknown keyword %q", k.Keyword)
}

// ConsentView is GET /members/{id}/consent: the member, and a page of their
// number's history (limit+1 rows; all of it when limit < 0).
type ConsentView struct {
	Member  domain.Member
	History []domain.ConsentEvent
}

// MemberConsent returns a member's consent and a page of the history of
// their number, oldest first.
func (s *Service) MemberConsent(ctx context.Context, teamID, memberID string, limit, offset int) (*ConsentView, error) {
	m, err := s.st.Members.Member(ctx, teamID, memberID)
	if err != nil {
		return nil, mapNotFound(err, errMemberNotFound)
	}
	h, err := s.st.Consent.ConsentHistory(ctx, teamID, m.Phone, limit, offset)
	if err != nil {
		return nil, err
	}
	return &ConsentView{Member: *m, History: h}, nil
}

// ConsentExport is the admin's export for one number of a team: its
// roster entries (those removed but kept on record included), whether it
// is opted out now, and its whole history, oldest first.
type ConsentExport struct {
	Phone    string
	OptedOut bool
	Members  []domain.Member
	History  []domain.ConsentEvent
}

// ExportConsent reads the export for a number given in any US format.
func (s *Service) ExportConsent(ctx context.Context, teamID, raw string) (*ConsentExport, error) {
	if _, err := s.st.Teams.Team(ctx, teamID); err != nil {
		return nil, mapNotFound(err, errTeamNotFound)
	}
	if raw == "" {
		return nil, fault.New(fault.Invalid, domain.CodeInvalidPhone, "phone is required: the number whose consent record to export")
	}
	phone, err := domain.ValidPhone("phone", raw)
	if err != nil {
		return nil, err
	}
	out := &ConsentExport{Phone: phone}
	if out.Members, err = s.st.Consent.MembersOnRecordByPhone(ctx, teamID, phone); err != nil {
		return nil, err
	}
	opted, err := s.st.OptOuts.OptedOutPhones(ctx, teamID, []string{phone})
	if err != nil {
		return nil, err
	}
	out.OptedOut = opted[phone]
	if out.History, err = s.st.Consent.ConsentHistory(ctx, teamID, phone, -1, 0); err != nil {
		return nil, err
	}
	return out, nil
}
