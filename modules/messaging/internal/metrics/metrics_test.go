package metrics_test

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/metrics"
	"github.com/teamtext/teamtext/platform/clock"
)

type stores struct {
	backlogs map[string]int64
	held     map[string]int
	pending  int64
	oldest   *time.Time
	err      error
}

func (s stores) Backlogs(context.Context) (map[string]int64, error)        { return s.backlogs, s.err }
func (s stores) QueuedByAccount(context.Context) (map[string]int64, error) { return nil, s.err }
func (s stores) HeldByTeam(context.Context, time.Time) (map[string]int, error) {
	return s.held, s.err
}
func (s stores) PendingStats(context.Context) (int64, *time.Time, error) {
	return s.pending, s.oldest, s.err
}

// PendingStatusStats reports twice the texts' backlog, so the two
// collectors' figures cannot be mixed up unnoticed.
func (s stores) PendingStatusStats(context.Context) (int64, *time.Time, error) {
	return 2 * s.pending, s.oldest, s.err
}

func names(t *testing.T, reg *prometheus.Registry) []string {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	var out []string
	for _, mf := range mfs {
		out = append(out, mf.GetName()+": "+mf.GetHelp())
	}
	sort.Strings(out)
	return out
}

// The instruments keep the names and help texts dashboards and alerts use.
func TestInstrumentsNames(t *testing.T) {
	reg := prometheus.NewRegistry()
	ins := metrics.New(reg)
	ins.Handover.Observe(1)
	ins.Handed.Inc()
	ins.Held.Observe(60)
	ins.MarkedUndeliverable.Inc()
	ins.FailedOver.Inc()
	ins.StatusLag.Observe(.1)
	require.Equal(t, []string{
		"teamtext_carrier_failover_texts_total: Queued texts moved to a team's numbers on healthy carrier accounts while theirs was down.",
		"teamtext_handover_delay_seconds: Time from a send's acceptance to each of its texts' hand-over to the carrier.",
		"teamtext_ingestion_lag_seconds: Time from a carrier's callback to its ingestion, by kind (status, inbound).",
		"teamtext_numbers_marked_undeliverable_total: Numbers marked undeliverable after UNDELIVERABLE_AFTER permanent delivery failures in a row.",
		"teamtext_quiet_hours_hold_seconds: How long quiet hours hold a routine text, from its send's planning to its slot.",
		"teamtext_texts_handed_over_total: Texts this node handed to the carrier (taken or refused by it).",
	}, names(t, reg))
	mfs, err := reg.Gather()
	require.NoError(t, err)
	kinds := []string{}
	for _, mf := range mfs {
		if mf.GetName() == "teamtext_ingestion_lag_seconds" {
			for _, m := range mf.GetMetric() {
				kinds = append(kinds, m.GetLabel()[0].GetValue())
			}
		}
	}
	require.ElementsMatch(t, []string{"status", "inbound"}, kinds)
}

// The collectors report what the stores hold at scrape time, and nothing
// when a store fails.
func TestCollectors(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	oldest := now.Add(-90 * time.Second)
	st := stores{backlogs: map[string]int64{"num_1": 7}, held: map[string]int{"team_1": 3}, pending: 4, oldest: &oldest}
	reg := prometheus.NewRegistry()
	metrics.RegisterEngine(reg, st, st, carrier.Carrier(nil), clock.NewFake(now), slog.New(slog.DiscardHandler))
	reg.MustRegister(metrics.NewPending(st, clock.NewFake(now), slog.New(slog.DiscardHandler)))
	reg.MustRegister(metrics.NewPendingStatuses(st, clock.NewFake(now), slog.New(slog.DiscardHandler)))
	require.Equal(t, []string{
		"teamtext_inbound_pending_oldest_seconds: Age of the oldest inbound text not yet filed (0 when none is waiting).",
		"teamtext_inbound_pending_texts: Inbound texts accepted from the carrier and not yet filed (stored, acted on, announced).",
		"teamtext_number_backlog_segments: SMS segments planned on a sending number and not yet handed to the carrier.",
		"teamtext_status_pending_oldest_seconds: Age of the oldest carrier status report not yet ingested (0 when none is waiting).",
		"teamtext_status_pending_reports: Carrier status reports accepted and not yet ingested (deliveries, counts, message.status).",
		"teamtext_texts_held_quiet_hours: Texts queued and held for their recipients' quiet hours, per team.",
	}, names(t, reg))
	mfs, err := reg.Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			key := mf.GetName()
			for _, l := range m.GetLabel() {
				key += "{" + l.GetName() + "=" + l.GetValue() + "}"
			}
			got[key] = m.GetGauge().GetValue()
		}
	}
	require.Equal(t, map[string]float64{
		"teamtext_inbound_pending_oldest_seconds":           90,
		"teamtext_inbound_pending_texts":                    4,
		"teamtext_number_backlog_segments{number_id=num_1}": 7,
		"teamtext_status_pending_oldest_seconds":            90,
		"teamtext_status_pending_reports":                   8,
		"teamtext_texts_held_quiet_hours{team_id=team_1}":   3,
	}, got)

	failing := prometheus.NewRegistry()
	bad := stores{err: errors.New("down")}
	metrics.RegisterEngine(failing, bad, bad, nil, clock.NewFake(now), slog.New(slog.DiscardHandler))
	failing.MustRegister(metrics.NewPending(bad, clock.NewFake(now), slog.New(slog.DiscardHandler)))
	failing.MustRegister(metrics.NewPendingStatuses(bad, clock.NewFake(now), slog.New(slog.DiscardHandler)))
	require.Empty(t, names(t, failing))
}
