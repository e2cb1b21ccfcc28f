package inbound

import (
	"context"
	"math"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
)

// Analytics are pre-aggregated per team per UTC day (messaging_daily_stats)
// in the same transactions that write the facts: dispatch adds a broadcast
// and its deliveries on the day it dispatches; delivery status ingestion
// adds delivered when a delivery's final status is delivered, on the day
// the text was handed to the carrier; inbound ingestion (or the release of
// held texts) adds a text received on the day it arrived. New members and
// opt-outs are roster facts, counted by the roster (rosterapi.Stats) with
// index range scans. A request therefore reads at most 366 days of a few
// counter rows plus two index counts, whatever the volume of messages.

// Analytics range limits.
const (
	DefaultRangeDays = 30
	MaxRangeDays     = 366
)

// Totals is GET /analytics's answer.
type Totals struct {
	From          time.Time // first UTC day, inclusive
	To            time.Time // last UTC day, inclusive
	Broadcasts    int64
	Deliveries    int64
	Delivered     int64
	DeliveryRate  float64
	TextsReceived int64
	NewMembers    int
	OptOuts       int
}

// ParseRange reads GET /analytics's from and to (UTC dates, YYYY-MM-DD).
// to defaults to today (UTC, per now), from to 29 days before to (30 days
// in all). from after to, a range over MaxRangeDays days (both ends
// included) or a malformed date is 400 invalid_request.
func ParseRange(from, to string, now time.Time) (time.Time, time.Time, error) {
	y, m, d := now.UTC().Date()
	end := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	if to != "" {
		t, err := time.Parse(time.DateOnly, to)
		if err != nil {
			return time.Time{}, time.Time{}, fault.Invalidf("to must be a UTC date, YYYY-MM-DD")
		}
		end = t
	}
	start := end.AddDate(0, 0, -(DefaultRangeDays - 1))
	if from != "" {
		t, err := time.Parse(time.DateOnly, from)
		if err != nil {
			return time.Time{}, time.Time{}, fault.Invalidf("from must be a UTC date, YYYY-MM-DD")
		}
		start = t
	}
	if start.After(end) {
		return time.Time{}, time.Time{}, fault.Invalidf("from must not be after to")
	}
	if days := int(end.Sub(start)/(24*time.Hour)) + 1; days > MaxRangeDays {
		return time.Time{}, time.Time{}, fault.Invalidf("the range is %d days; at most %d days (from and to included)", days, MaxRangeDays)
	}
	return start, end, nil
}

// Rate is delivered/deliveries rounded to 4 decimals: 0 when nothing was
// dispatched, and never above 1 (a delivery dispatched just before the range
// and confirmed in it counts as delivered but not as dispatched).
func Rate(delivered, deliveries int64) float64 {
	if deliveries <= 0 {
		return 0
	}
	r := math.Round(float64(delivered)/float64(deliveries)*10000) / 10000
	return math.Min(r, 1)
}

// AnalyticsDeps are the analytics' collaborators: messaging's counters
// and roster's counts.
type AnalyticsDeps struct {
	Counters Counters
	Stats    rosterapi.Stats
	Clock    clock.Clock
}

// Analytics answers GET /analytics.
type Analytics struct{ AnalyticsDeps }

// NewAnalytics returns the analytics.
func NewAnalytics(d AnalyticsDeps) *Analytics { return &Analytics{AnalyticsDeps: d} }

// Totals totals a team's activity over the UTC days from..to.
func (s *Analytics) Totals(ctx context.Context, teamID, from, to string) (*Totals, error) {
	start, end, err := ParseRange(from, to, s.Clock.Now())
	if err != nil {
		return nil, err
	}
	sum, err := s.Counters.SumStats(ctx, teamID, start, end)
	if err != nil {
		return nil, err
	}
	members, optOuts, err := s.Stats.Counts(ctx, teamID, start, end.AddDate(0, 0, 1))
	if err != nil {
		return nil, err
	}
	return &Totals{From: start, To: end, Broadcasts: sum.Broadcasts, Deliveries: sum.Deliveries, Delivered: sum.Delivered,
		DeliveryRate: Rate(sum.Delivered, sum.Deliveries), TextsReceived: sum.TextsReceived, NewMembers: members, OptOuts: optOuts}, nil
}

// Day is one UTC day of the dashboard's chart: broadcasts, texts sent
// (deliveries dispatched), delivered and failed, and the day's delivery rate.
type Day struct {
	Day        time.Time // midnight UTC
	Broadcasts int64
	Sent       int64
	Delivered  int64
	Failed     int64
	Rate       float64 // Rate(Delivered, Sent)
}

// Report is the dashboard's Analytics page: GET /analytics's totals and
// the same range day by day, every day from..to included (days with
// nothing counted are zero). The days' sent and delivered sum to the
// totals' deliveries and delivered.
type Report struct {
	Totals
	Days []Day
}

// Report is Totals with its days. An empty to is today in the team's time
// zone zone (an IANA name; UTC if unknown), the dashboard's default; the
// days themselves are UTC days, as the counters and the API's.
func (s *Analytics) Report(ctx context.Context, teamID, from, to, zone string) (*Report, error) {
	if to == "" {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			loc = time.UTC
		}
		to = s.Clock.Now().In(loc).Format(time.DateOnly)
	}
	t, err := s.Totals(ctx, teamID, from, to)
	if err != nil {
		return nil, err
	}
	ds, err := s.Counters.DayStats(ctx, teamID, t.From, t.To)
	if err != nil {
		return nil, err
	}
	byDay := make(map[string]domain.DayStats, len(ds))
	for _, d := range ds {
		byDay[d.Day.Format(time.DateOnly)] = d
	}
	r := &Report{Totals: *t}
	for day := t.From; !day.After(t.To); day = day.AddDate(0, 0, 1) {
		d := byDay[day.Format(time.DateOnly)]
		r.Days = append(r.Days, Day{Day: day, Broadcasts: d.Broadcasts, Sent: d.Deliveries, Delivered: d.Delivered, Failed: d.Failed, Rate: Rate(d.Delivered, d.Deliveries)})
	}
	return r, nil
}
