package web

import (
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/platform/web"
)

// analyticsView is the Analytics page: the range form, the spec's totals
// (the same use case as GET /api/v1/analytics), and the chart of texts
// per day with its table.
type analyticsView struct {
	From, To string // the form's values: as typed after a refusal
	Report   *inbound.Report
	Chart    template.HTML
	Rate     string // the totals' delivery rate, as a percentage
	Days     []dayRow
	MaxDays  int
	Err      string
}

// dayRow is a day of the table.
type dayRow struct {
	Day                                 time.Time
	Broadcasts, Sent, Delivered, Failed int64
	Rate                                string // "" when nothing was sent that day
}

// ratePct is a delivery rate (0..1) as people read it.
func ratePct(r float64) string { return fmt.Sprintf("%.1f%%", r*100) }

// analyticsShow is GET /app/analytics?from=&to=: dates (YYYY-MM-DD), the
// default range the last 30 days ending today in the team's time zone; a
// bad range (malformed, from after to, over 366 days) answers 400 with
// the form and the reason.
func (h *handler) analyticsShow(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	q := r.URL.Query()
	from, to := strings.TrimSpace(q.Get("from")), strings.TrimSpace(q.Get("to"))
	av := analyticsView{From: from, To: to, MaxDays: inbound.MaxRangeDays}
	rep, err := h.svc.Analytics.Report(r.Context(), v.TeamID, from, to, v.TimeZone)
	if err != nil {
		h.refuse(w, r, err, func(status int, msg string) {
			av.Err = msg
			h.shell.Render(w, r, h.analytics, status, "Analytics", av)
		})
		return
	}
	av.Report, av.Chart, av.Rate = rep, chart(rep.Days), ratePct(rep.DeliveryRate)
	for _, d := range rep.Days {
		row := dayRow{Day: d.Day, Broadcasts: d.Broadcasts, Sent: d.Sent, Delivered: d.Delivered, Failed: d.Failed}
		if d.Sent > 0 {
			row.Rate = ratePct(d.Rate)
		}
		av.Days = append(av.Days, row)
	}
	av.From, av.To = rep.From.Format("2006-01-02"), rep.To.Format("2006-01-02")
	h.shell.Render(w, r, h.analytics, http.StatusOK, "Analytics", av)
}

// The chart's geometry, in the SVG's own units (it scales to its box).
const (
	chartW, chartH         = 640, 320
	chartLeft, chartRight  = 56, 64
	chartTop, chartBottom  = 48, 40
	colSent, colDelivered  = "#0b57d0", "#1e8e3e"
	colFailed, colRate     = "#b3261e", "#8a5a00"
	chartGrid, chartLabels = "#dde1e6", "#5b6570"
)

// chart draws days as an inline SVG: per day, bars of texts sent,
// delivered and failed on the left axis, and the delivery rate as a line
// on the right axis (0 to 100%), for days with texts sent. Only numbers
// and dates go into it, and presentation is in attributes (the CSP has no
// inline styles); the figures are in the table below it as well.
func chart(days []inbound.Day) template.HTML {
	n := len(days)
	if n == 0 {
		return ""
	}
	var top int64 = 1
	for _, d := range days {
		top = max(top, d.Sent, d.Delivered, d.Failed)
	}
	pw, ph := float64(chartW-chartLeft-chartRight), float64(chartH-chartTop-chartBottom)
	slot := pw / float64(n)
	bar := slot / 3 * 0.85
	y := func(v float64) float64 { return float64(chartTop) + ph - v*ph }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="100%%" role="img" aria-labelledby="chart-title chart-desc" font-family="system-ui, sans-serif" font-size="18">`, chartW, chartH)
	fmt.Fprintf(&b, `<title id="chart-title">Texts sent, delivered and failed per day, and delivery rate, %s to %s</title>`, days[0].Day.Format("Jan 2, 2006"), days[n-1].Day.Format("Jan 2, 2006"))
	b.WriteString(`<desc id="chart-desc">Bars: texts sent, delivered and failed each day (left axis). Line: the day's delivery rate (right axis, 0 to 100%). The table below has each day's figures.</desc>`)
	// Axes and grid: 0, half and the top of the left axis; 0, 50 and 100% on the right.
	for _, f := range []float64{0, 0.5, 1} {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="1"/>`, chartLeft, chartW-chartRight, y(f), y(f), chartGrid)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" fill="%s">%d</text>`, chartLeft-8, y(f)+6, chartLabels, int64(f*float64(top)+0.5))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="start" fill="%s">%d%%</text>`, chartW-chartRight+8, y(f)+6, chartLabels, int(f*100))
	}
	// Bars.
	for i, d := range days {
		x := float64(chartLeft) + float64(i)*slot + (slot-3*bar)/2
		for k, c := range []struct {
			v   int64
			col string
		}{{d.Sent, colSent}, {d.Delivered, colDelivered}, {d.Failed, colFailed}} {
			if c.v == 0 {
				continue
			}
			h := float64(c.v) / float64(top) * ph
			fmt.Fprintf(&b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="%s"/>`, x+float64(k)*bar, y(0)-h, bar, h, c.col)
		}
	}
	// The rate line, through the days with texts sent.
	var pts []string
	for i, d := range days {
		if d.Sent == 0 {
			continue
		}
		cx := float64(chartLeft) + (float64(i)+0.5)*slot
		pts = append(pts, fmt.Sprintf("%.2f,%.2f", cx, y(d.Rate)))
		fmt.Fprintf(&b, `<circle cx="%.2f" cy="%.2f" r="3" fill="%s"/>`, cx, y(d.Rate), colRate)
	}
	if len(pts) > 1 {
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`, strings.Join(pts, " "), colRate)
	}
	// Dates under the first and last days (and the middle one of a long range).
	label := func(i int, anchor string) {
		cx := float64(chartLeft) + (float64(i)+0.5)*slot
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="%s" fill="%s">%s</text>`, cx, chartH-chartBottom+26, anchor, chartLabels, days[i].Day.Format("Jan 2"))
	}
	label(0, "start")
	if n > 2 {
		label(n/2, "middle")
	}
	if n > 1 {
		label(n-1, "end")
	}
	// Legend.
	x := chartLeft
	for _, l := range []struct{ name, col string }{{"Sent", colSent}, {"Delivered", colDelivered}, {"Failed", colFailed}, {"Delivery rate", colRate}} {
		fmt.Fprintf(&b, `<rect x="%d" y="8" width="16" height="16" fill="%s"/><text x="%d" y="22" fill="#1b1f24">%s</text>`, x, l.col, x+22, l.name)
		x += 22 + 10*len(l.name) + 18
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // numbers, dates and fixed words only
}
