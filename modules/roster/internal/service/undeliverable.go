package service

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/phone"
)

// Numbers that keep failing: the roster keeps, per team and
// number, the streak of permanent delivery failures status ingestion
// reports, and the mark once it reaches the configured count.

// NoteOutcomes implements rosterapi.Deliverability: the resets first (their
// rows deleted), then the failures added, each in one statement.
func (d *Directory) NoteOutcomes(ctx context.Context, outcomes []rosterapi.NumberOutcome, markAfter int) ([]rosterapi.TeamPhone, error) {
	type key struct{ team, phone string }
	merged := make(map[key]rosterapi.NumberOutcome, len(outcomes))
	var order []key
	for _, o := range outcomes { // one row per number: a later outcome folds into an earlier one
		k := key{o.TeamID, string(o.Phone)}
		cur, ok := merged[k]
		if !ok {
			order = append(order, k)
			merged[k] = o
			continue
		}
		if o.Reset {
			cur.Reset, cur.Failures = true, 0
		}
		cur.Failures += o.Failures
		if o.Failures > 0 {
			cur.LastCode, cur.At = o.LastCode, o.At
		}
		merged[k] = cur
	}
	var resetTeams, resetPhones []string
	var fails []domain.Failure
	for _, k := range order {
		o := merged[k]
		if o.Reset {
			resetTeams, resetPhones = append(resetTeams, o.TeamID), append(resetPhones, string(o.Phone))
		}
		if o.Failures > 0 {
			fails = append(fails, domain.Failure{TeamID: o.TeamID, Phone: string(o.Phone), Failures: o.Failures, LastCode: o.LastCode, At: o.At})
		}
	}
	if err := d.st.Outcomes.ClearStreaks(ctx, resetTeams, resetPhones); err != nil {
		return nil, err
	}
	added := make(map[key]int, len(fails))
	for _, f := range fails {
		added[key{f.TeamID, f.Phone}] = f.Failures
	}
	rows, err := d.st.Outcomes.NoteFailures(ctx, fails, markAfter)
	if err != nil {
		return nil, err
	}
	var marked []rosterapi.TeamPhone
	for _, r := range rows {
		if r.Since != nil && r.Failures-added[key{r.TeamID, r.Phone}] < markAfter {
			marked = append(marked, rosterapi.TeamPhone{TeamID: r.TeamID, Phone: phone.Number(r.Phone)})
		}
	}
	return marked, nil
}

// ClearMemberUndeliverable is the admin's clear: the number of one of the
// team's members (404 if none) is no longer undeliverable, on every entry
// with it, and its streak starts again.
func (s *Service) ClearMemberUndeliverable(ctx context.Context, teamID, memberID string) (*MemberView, error) {
	var out *MemberView
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		m, err := s.st.Members.Member(ctx, teamID, memberID)
		if err != nil {
			return mapNotFound(err, errMemberNotFound)
		}
		if _, err := s.st.OptOuts.ClearUndeliverable(ctx, teamID, m.Phone); err != nil {
			return err
		}
		out, err = s.view(ctx, m)
		return err
	})
	return out, err
}

// UndeliverableSince returns since when each of phones is undeliverable on
// the team (absent: it is not).
func (s *Service) UndeliverableSince(ctx context.Context, teamID string, phones ...string) (map[string]time.Time, error) {
	return s.st.OptOuts.UndeliverableSince(ctx, teamID, phones)
}

// withUndeliverable sets the views' mark from the team's undeliverable numbers.
func (s *Service) withUndeliverable(ctx context.Context, teamID string, vs []MemberView) error {
	if len(vs) == 0 {
		return nil
	}
	phones := make([]string, len(vs))
	for i := range vs {
		phones[i] = vs[i].Phone
	}
	marks, err := s.st.OptOuts.UndeliverableSince(ctx, teamID, phones)
	if err != nil {
		return err
	}
	for i := range vs {
		if at, ok := marks[vs[i].Phone]; ok {
			vs[i].UndeliverableSince = &at
		}
	}
	return nil
}
