package service

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/phone"
)

// Opt-out sources.
const (
	SourceAPI     = "api"
	SourceSMS     = "sms"
	SourceSupport = "support"
)

// OptOutResult is the record of an opted-out number.
type OptOutResult struct {
	Phone     string
	MemberIDs []string
	// RemovedMemberIDs are the entries of MemberIDs removed from the roster
	// (kept on record because they opted out); set by OptOuts only.
	RemovedMemberIDs []string
	Source           string
	OptedOutAt       time.Time
	New              bool // false when the number was opted out already
}

// OptOut opts a number out for good: every roster entry with it becomes
// opted_out (one member.opted_out each), and the number is recorded so the
// API will not add it later. No text is sent. Staff numbers (staff or a
// dashboard login on any entry) are refused unless allowStaff (an inbound
// STOP is always honoured). Opting out an opted-out number is a no-op.
func (s *Service) OptOut(ctx context.Context, teamID, phone, source string, allowStaff bool) (*OptOutResult, error) {
	return s.optOut(ctx, teamID, phone, source, allowStaff, consentRef{})
}

// optOut is OptOut, keeping the opt-out (new or not) in the number's
// consent history with what ref knows.
func (s *Service) optOut(ctx context.Context, teamID, phone, source string, allowStaff bool, ref consentRef) (*OptOutResult, error) {
	var out *OptOutResult
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		if err := s.st.Members.LockPhone(ctx, teamID, phone); err != nil {
			return err
		}
		entries, err := s.st.OptOuts.LockMembersByPhone(ctx, teamID, phone)
		if err != nil {
			return err
		}
		if !allowStaff {
			for _, m := range entries {
				if m.Protected() {
					return errStaffNumber()
				}
			}
		}
		now := s.clock.Now().UTC()
		rec := &domain.OptOut{TeamID: teamID, Phone: phone, Source: source, CreatedAt: now}
		isNew, err := s.st.OptOuts.InsertOptOut(ctx, rec)
		if err != nil {
			return err
		}
		if !isNew {
			if rec, err = s.st.OptOuts.OptOut(ctx, teamID, phone); err != nil {
				return err
			}
		}
		if err := s.st.Consent.InsertConsentEvents(ctx, []domain.ConsentEvent{
			historyRow(teamID, phone, domain.HistoryOptOut, optOutChannel(source), isNew, ref, now)}); err != nil {
			return err
		}
		changed, err := s.st.OptOuts.SetStatusByPhone(ctx, teamID, phone, domain.StatusOptedOut, now)
		if err != nil {
			return err
		}
		for i := range changed {
			if err := s.publishMember(ctx, events.MemberOptedOut, &changed[i]); err != nil {
				return err
			}
		}
		out = &OptOutResult{Phone: phone, Source: rec.Source, OptedOutAt: rec.CreatedAt, New: isNew, MemberIDs: ids(entries)}
		return nil
	})
	return out, err
}

// RecordOptOut is an opt-out recorded through the API (source api) or by
// support (source support): exactly one of phone (any US format) and
// memberID names the number.
func (s *Service) RecordOptOut(ctx context.Context, teamID, phone, memberID, source string) (*OptOutResult, error) {
	switch {
	case (phone == "") == (memberID == ""):
		return nil, fault.Invalidf("send exactly one of phone and member_id")
	case memberID != "":
		return s.OptOutMember(ctx, teamID, memberID, source)
	default:
		return s.OptOutPhone(ctx, teamID, phone, source)
	}
}

// OptOutMember opts out the number of one member (POST /opt-outs with member_id).
func (s *Service) OptOutMember(ctx context.Context, teamID, memberID, source string) (*OptOutResult, error) {
	m, err := s.st.Members.Member(ctx, teamID, memberID)
	if err != nil {
		return nil, mapNotFound(err, errMemberNotFound)
	}
	return s.optOut(ctx, teamID, m.Phone, source, false, consentRef{memberID: m.ID})
}

// OptIn reverses an opt-out; only an inbound START calls it. Every entry
// with the number becomes active again (one member.opted_in each). It
// reports false when the number was not opted out.
func (s *Service) OptIn(ctx context.Context, teamID, phone string) (bool, error) {
	return s.optIn(ctx, teamID, phone, consentRef{})
}

// optIn is OptIn, keeping the START (whether or not the number was opted
// out) in the number's consent history with what ref knows.
func (s *Service) optIn(ctx context.Context, teamID, phone string, ref consentRef) (bool, error) {
	var was bool
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		if err := s.st.Members.LockPhone(ctx, teamID, phone); err != nil {
			return err
		}
		var err error
		if was, err = s.st.OptOuts.DeleteOptOut(ctx, teamID, phone); err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		if err := s.st.Consent.InsertConsentEvents(ctx, []domain.ConsentEvent{
			historyRow(teamID, phone, domain.HistoryOptIn, domain.ChannelSMS, was, ref, now)}); err != nil {
			return err
		}
		if !was {
			return nil
		}
		changed, err := s.st.OptOuts.SetStatusByPhone(ctx, teamID, phone, domain.StatusActive, now)
		if err != nil {
			return err
		}
		for i := range changed {
			if err := s.publishMember(ctx, events.MemberOptedIn, &changed[i]); err != nil {
				return err
			}
		}
		return nil
	})
	return was, err
}

// OptOuts lists a team's opt-outs, newest first (limit+1 rows), with the
// roster entries of each number, those removed from the roster included.
func (s *Service) OptOuts(ctx context.Context, teamID string, limit, offset int) ([]OptOutResult, error) {
	recs, err := s.st.OptOuts.OptOuts(ctx, teamID, limit, offset)
	if err != nil {
		return nil, err
	}
	phones := make([]string, len(recs))
	for i, r := range recs {
		phones[i] = r.Phone
	}
	// Removed members stay listed (spec §3: kept on record so the opt-out
	// stays), marked as removed.
	ms, err := s.st.OptOuts.MembersOnRecordByPhones(ctx, teamID, phones)
	if err != nil {
		return nil, err
	}
	byPhone, removed := map[string][]string{}, map[string][]string{}
	for _, m := range ms {
		byPhone[m.Phone] = append(byPhone[m.Phone], m.ID)
		if m.DeletedAt != nil {
			removed[m.Phone] = append(removed[m.Phone], m.ID)
		}
	}
	out := make([]OptOutResult, len(recs))
	for i, r := range recs {
		out[i] = OptOutResult{Phone: r.Phone, Source: r.Source, OptedOutAt: r.CreatedAt, MemberIDs: byPhone[r.Phone], RemovedMemberIDs: removed[r.Phone]}
	}
	return out, nil
}

// BulkItem is one item's outcome in POST /opt-outs/bulk.
type BulkItem struct {
	Index  int
	Input  string
	Result *OptOutResult
	Err    *fault.Error
}

// BulkOptOut opts out up to 500 numbers in one transaction, set-based: a
// fixed number of statements whatever the batch size. Items are still
// independent: an invalid or staff number is refused alone, decided before
// anything is written; a repeated number answers already_opted_out.
func (s *Service) BulkOptOut(ctx context.Context, teamID string, phones []string) ([]BulkItem, error) {
	out := make([]BulkItem, len(phones))
	first := map[string]int{} // E.164 -> index of its first item
	var distinct []string
	for i, raw := range phones {
		out[i] = BulkItem{Index: i, Input: raw}
		p, err := domain.ValidPhone("phone", raw)
		if err != nil {
			f, _ := fault.As(err)
			out[i].Err = f
			continue
		}
		out[i].Result = &OptOutResult{Phone: p, Source: SourceAPI}
		if _, seen := first[p]; !seen {
			first[p] = i
			distinct = append(distinct, p)
		}
	}
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		if err := s.st.Members.LockPhones(ctx, teamID, distinct); err != nil {
			return err
		}
		entries, err := s.st.OptOuts.MembersByPhones(ctx, teamID, distinct)
		if err != nil {
			return err
		}
		byPhone := map[string][]string{}
		protected := map[string]bool{}
		for _, m := range entries {
			byPhone[m.Phone] = append(byPhone[m.Phone], m.ID)
			if m.Protected() {
				protected[m.Phone] = true
			}
		}
		var eligible []string
		for _, p := range distinct {
			if !protected[p] {
				eligible = append(eligible, p)
			}
		}
		now := s.clock.Now().UTC()
		isNew, err := s.st.OptOuts.InsertOptOuts(ctx, teamID, eligible, SourceAPI, now)
		if err != nil {
			return err
		}
		history := make([]domain.ConsentEvent, len(eligible))
		for i, p := range eligible {
			history[i] = historyRow(teamID, p, domain.HistoryOptOut, domain.ChannelAPI, isNew[p], consentRef{}, now)
		}
		if err := s.st.Consent.InsertConsentEvents(ctx, history); err != nil {
			return err
		}
		changed, err := s.st.OptOuts.SetStatusByPhones(ctx, teamID, eligible, domain.StatusOptedOut, now)
		if err != nil {
			return err
		}
		evs := make([]events.Event, len(changed))
		for i := range changed {
			evs[i] = memberEvent(events.MemberOptedOut, &changed[i])
		}
		if err := events.PublishAll(ctx, s.events, teamID, evs); err != nil {
			return err
		}
		for i := range out {
			r := out[i].Result
			if r == nil {
				continue
			}
			r.MemberIDs, r.OptedOutAt = byPhone[r.Phone], now
			if r.MemberIDs == nil {
				r.MemberIDs = []string{}
			}
			switch {
			case protected[r.Phone]:
				out[i].Result, out[i].Err = nil, errStaffNumber()
			case first[r.Phone] == i:
				r.New = isNew[r.Phone]
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Check is one number's answer in POST /recipients/validate.
type Check struct {
	Input     string
	Phone     string // E.164, empty when invalid
	Valid     bool
	OnRoster  bool
	OptedOut  bool
	MemberIDs []string
	// Undeliverable: the number is marked undeliverable.
	Undeliverable bool
}

// Validate checks numbers without changing anything.
func (s *Service) Validate(ctx context.Context, teamID string, inputs []string) ([]Check, error) {
	out := make([]Check, len(inputs))
	var phones []string
	for i, in := range inputs {
		out[i] = Check{Input: in, MemberIDs: []string{}}
		if p, err := domain.ValidPhone("phone", in); err == nil {
			out[i].Phone, out[i].Valid = p, true
			phones = append(phones, p)
		}
	}
	ms, err := s.st.OptOuts.MembersByPhones(ctx, teamID, phones)
	if err != nil {
		return nil, err
	}
	opted, err := s.st.OptOuts.OptedOutPhones(ctx, teamID, phones)
	if err != nil {
		return nil, err
	}
	marks, err := s.st.OptOuts.UndeliverableSince(ctx, teamID, phones)
	if err != nil {
		return nil, err
	}
	byPhone := map[string][]string{}
	for _, m := range ms {
		byPhone[m.Phone] = append(byPhone[m.Phone], m.ID)
	}
	for i := range out {
		if !out[i].Valid {
			continue
		}
		if ids := byPhone[out[i].Phone]; len(ids) > 0 {
			out[i].OnRoster, out[i].MemberIDs = true, ids
		}
		out[i].OptedOut = opted[out[i].Phone]
		_, out[i].Undeliverable = marks[out[i].Phone]
	}
	return out, nil
}

func ids(ms []domain.Member) []string {
	out := make([]string, len(ms))
	for i := range ms {
		out[i] = ms[i].ID
	}
	return out
}

// OptOutPhone opts out a number given in any US format (POST /opt-outs).
func (s *Service) OptOutPhone(ctx context.Context, teamID, raw, source string) (*OptOutResult, error) {
	p, err := domain.ValidPhone("phone", raw)
	if err != nil {
		return nil, err
	}
	return s.OptOut(ctx, teamID, p, source, false)
}

// OptOutBySMS implements rosterapi.OptOuts: an inbound STOP, honoured for
// every number, staff included.
func (s *Service) OptOutBySMS(ctx context.Context, teamID string, number phone.Number) error {
	_, err := s.OptOut(ctx, teamID, string(number), SourceSMS, true)
	return err
}

// OptInBySMS implements rosterapi.OptOuts: an inbound START.
func (s *Service) OptInBySMS(ctx context.Context, teamID string, number phone.Number) (bool, error) {
	return s.OptIn(ctx, teamID, string(number))
}

// OptedOutAmong implements rosterapi.OptOuts.
func (s *Service) OptedOutAmong(ctx context.Context, pairs []rosterapi.TeamPhone) ([]rosterapi.TeamPhone, error) {
	return NewDirectory(s.st.Directory).OptedOutAmong(ctx, pairs)
}

// IsOptedOut implements rosterapi.OptOuts.
func (s *Service) IsOptedOut(ctx context.Context, teamID string, number phone.Number) (bool, error) {
	return NewDirectory(s.st.Directory).IsOptedOut(ctx, teamID, number)
}

// errStaffNumber refuses to opt out a number that staff or a member with a
// dashboard login answers to.
func errStaffNumber() *fault.Error {
	return fault.New(fault.Forbidden, domain.CodeStaffMemberProtected, "this number belongs to staff or a member with a dashboard login")
}
