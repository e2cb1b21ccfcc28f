package e2e

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

type teamCredits struct {
	CreditsUsed     int `json:"credits_used"`
	CreditsIncluded int `json:"credits_included"`
}

func credits(t *testing.T, api *harness.Client) teamCredits {
	t.Helper()
	var c teamCredits
	require.NoError(t, do(t, api, "GET", "/team", nil).Data(&c))
	return c
}

// TestCreditTotals: every send consumes recipients × segments credits.
func TestCreditTotals(t *testing.T) {
	t.Parallel()
	_, api := messagingTeam(t, harness.TeamOptions{})
	for i, p := range []string{"2025550401", "2025550402", "2025550403"} {
		addMember(t, api, map[string]any{"name": "M" + string(rune('A'+i)), "phone": p})
	}
	require.Equal(t, teamCredits{0, 5000}, credits(t, api))
	send := func(text string) sent {
		r := do(t, api, "POST", "/messages", map[string]any{"text": text, "audience": "families"})
		require.Equal(t, 201, r.Status, string(r.Body))
		var m sent
		require.NoError(t, r.Data(&m))
		return m
	}
	gsm := send("Practice at 5")                      // 1 GSM-7 segment × 3
	ucs := send(strings.Repeat("Go team! ", 6) + "⚽") // UCS-2, 2 segments × 3
	long := send(strings.Repeat("Bring water. ", 14)) // GSM-7, 2 segments × 3
	require.Equal(t, "GSM-7", gsm.Encoding)
	require.Equal(t, 1, gsm.SegmentsPerRecipient)
	require.Equal(t, "UCS-2", ucs.Encoding)
	require.Equal(t, 2, ucs.SegmentsPerRecipient)
	require.Equal(t, "GSM-7", long.Encoding)
	require.Equal(t, 2, long.SegmentsPerRecipient)
	require.Equal(t, teamCredits{3 + 6 + 6, 5000}, credits(t, api))
	// Estimates are free.
	require.Equal(t, 200, do(t, api, "POST", "/messages/estimate", map[string]any{"text": "x", "audience": "families"}).Status)
	require.Equal(t, 15, credits(t, api).CreditsUsed)
}

// TestTrialNoOverdraft: 20 parallel one-credit sends against 7 trial
// credits: exactly 7 go out, the rest get 402 trial_limit.
func TestTrialNoOverdraft(t *testing.T) {
	t.Parallel()
	f, api := messagingTeam(t, harness.TeamOptions{Extra: map[string]any{"trial": true, "trial_credits": 7}})
	addMember(t, api, map[string]any{"name": "Only", "phone": "2025550410"})
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := do(t, api, "POST", "/messages", map[string]any{"text": "Trial text", "audience": "families"})
			mu.Lock()
			defer mu.Unlock()
			statuses[r.Status]++
			if r.Status >= 500 {
				t.Logf("send answered %d: %s (request %s)", r.Status, r.Body, r.Header.Get("X-Request-Id"))
			}
			if r.Status == 402 {
				require.Equal(t, "trial_limit", r.ErrorCode())
			}
		}()
	}
	wg.Wait()
	require.Equal(t, map[int]int{201: 7, 402: 13}, statuses)
	require.Equal(t, 7, countRows(t, `SELECT count(*) FROM messaging_messages WHERE team_id = $1`, f.TeamID))
	require.Equal(t, 7, countRows(t, `SELECT coalesce(sum(credits), 0)::int FROM billing_credit_entries WHERE team_id = $1`, f.TeamID))
}
