package view_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/roster/internal/httpapi/view"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// memberPage is a full members page as the API renders it: consent records
// with and without evidence, members with none (null), the undeliverable
// mark set and not, no groups (an empty list) and several, names with
// quotes, HTML and non-ASCII, times with and without fractions.
func memberPage() httpapi.ListBody[view.Member] {
	ms := make([]view.Member, 0, 200)
	at := time.Date(2026, 11, 24, 12, 0, 0, 123456789, time.UTC)
	for i := range 200 {
		m := view.Member{ID: fmt.Sprintf("mem_01JD%022d", i), Name: fmt.Sprintf("Membre \"%d\" <Élodie> & Søn", i),
			Phone: fmt.Sprintf("+1202555%04d", i), Role: "athlete", Status: "active", GroupIDs: []string{},
			CreatedAt: at.Add(time.Duration(i) * 1001 * time.Microsecond)}
		if i%3 == 0 {
			m.Email, m.Role, m.GroupIDs = fmt.Sprintf("m%d@example.com", i), "guardian", []string{"grp_a", "grp_b"}
		}
		if i%2 == 0 {
			m.Consent = &view.Consent{Source: "import", At: at.Truncate(time.Second)}
			if i%4 == 0 {
				ev := "Signed the form at https://example.com/join?a=1&b=2 \u2028 <br>"
				m.Consent.Evidence = &ev
			}
		}
		if i%5 == 0 {
			since := at.Add(-time.Hour)
			m.Deliverability = view.DeliverabilityFrom(&since)
		}
		m.IsBlocked, m.DashboardLogin = i%7 == 0, i%11 == 0
		ms = append(ms, m)
	}
	next := 400
	return httpapi.ListBody[view.Member]{Data: ms, Pagination: httpapi.Pagination{Limit: 200, Offset: 200, HasMore: true, NextOffset: &next}}
}

// TestMemberPageJSONUnchanged: a members page, a single member and an
// empty page encode to the same bytes through httpapi.JSONFormat as
// through huma's default encoding/json format.
func TestMemberPageJSONUnchanged(t *testing.T) {
	t.Parallel()
	page := memberPage()
	for _, v := range []any{&page, httpapi.DataBody[view.Member]{Data: page.Data[0]}, httpapi.DataBody[view.Member]{Data: page.Data[1]},
		httpapi.ListBody[view.Member]{Data: []view.Member{}, Pagination: httpapi.Pagination{Limit: 50}}} {
		var want, got bytes.Buffer
		require.NoError(t, huma.DefaultJSONFormat.Marshal(&want, v))
		require.NoError(t, httpapi.JSONFormat.Marshal(&got, v))
		require.Equal(t, want.String(), got.String())
	}
}

// BenchmarkMemberPageJSON: the encoding of a 200-member page, huma's
// default format against httpapi.JSONFormat.
func BenchmarkMemberPageJSON(b *testing.B) {
	page := memberPage()
	for name, f := range map[string]huma.Format{"encoding-json": huma.DefaultJSONFormat, "segmentio": httpapi.JSONFormat} {
		b.Run(name, func(b *testing.B) {
			var buf bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				if err := f.Marshal(&buf, &page); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
