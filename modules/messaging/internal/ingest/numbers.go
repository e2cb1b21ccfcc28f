package ingest

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/phone"
)

// Numbers is what ingestion tells the roster about the numbers texted,
// so that failing ones are marked: each delivery that reaches a final status says something
// about its number (domain.OutcomeOf, by the carrier's codes), and a
// number whose deliveries failed permanently MarkAfter times in a row is
// marked undeliverable. It is written in the ingesting transaction.
type Numbers struct {
	Roster    rosterapi.Deliverability
	Classify  domain.Classifier
	MarkAfter int
	Marked    prometheus.Counter // numbers newly marked undeliverable; may be nil
}

// TrackNumbers makes ingestion keep the numbers' streaks; without it (unit
// tests of other parts) it does not.
func (s *Service) TrackNumbers(n Numbers) *Service {
	s.numbers = &n
	return s
}

// finalWord is a delivery that just reached a final status, in the order
// its report was applied.
type finalWord struct {
	teamID, phone, status, code string
	at                          time.Time
}

// noteNumbers folds the batch's final words per number, in order, and
// hands the numbers whose streak changes to the roster in one call.
func (s *Service) noteNumbers(ctx context.Context, words []finalWord) error {
	n := s.numbers
	if n == nil || n.Roster == nil || len(words) == 0 {
		return nil
	}
	type key struct{ team, phone string }
	streaks := map[key]domain.Streak{}
	last := map[key]time.Time{}
	var order []key
	for _, w := range words {
		o := domain.OutcomeOf(w.status, w.code, n.Classify)
		if o == domain.OutcomeNeutral {
			continue
		}
		k := key{w.teamID, w.phone}
		if _, ok := streaks[k]; !ok {
			order = append(order, k)
		}
		streaks[k] = streaks[k].Add(o, w.code)
		if w.at.After(last[k]) {
			last[k] = w.at
		}
	}
	if len(order) == 0 {
		return nil
	}
	now := s.clock.Now().UTC()
	outs := make([]rosterapi.NumberOutcome, 0, len(order))
	for _, k := range order {
		st := streaks[k]
		at := last[k]
		if at.IsZero() {
			at = now
		}
		outs = append(outs, rosterapi.NumberOutcome{TeamID: k.team, Phone: phone.Number(k.phone), Reset: st.Reset, Failures: st.Failures,
			LastCode: st.LastCode, At: at.UTC()})
	}
	marked, err := n.Roster.NoteOutcomes(ctx, outs, n.MarkAfter)
	if err != nil {
		return err
	}
	if len(marked) > 0 {
		if n.Marked != nil {
			n.Marked.Add(float64(len(marked)))
		}
		teams := map[string]int{}
		for _, m := range marked {
			teams[m.TeamID]++
		}
		for team, count := range teams {
			s.log.Info("numbers marked undeliverable after permanent delivery failures", slog.String("team_id", team), slog.Int("numbers", count))
		}
	}
	return nil
}
