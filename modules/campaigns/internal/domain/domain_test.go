package domain

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/fault"
)

func code(err error) string {
	if f, ok := fault.As(err); ok {
		return f.Code
	}
	return ""
}

// TestTransitions is the campaign rows of the spec's state table, every
// status against every action.
func TestTransitions(t *testing.T) {
	t.Parallel()
	statuses := []string{StatusScheduled, StatusPaused, StatusCancelled, StatusCompleted}
	want := map[Action]map[string]string{
		Pause:  {StatusScheduled: StatusPaused},
		Resume: {StatusPaused: StatusScheduled},
		Cancel: {StatusScheduled: StatusCancelled, StatusPaused: StatusCancelled},
	}
	for a, ok := range want {
		for _, from := range statuses {
			t.Run(string(a)+"_"+from, func(t *testing.T) {
				t.Parallel()
				next, err := Transition(from, a)
				if to, allowed := ok[from]; allowed {
					require.NoError(t, err)
					require.Equal(t, to, next)
					return
				}
				require.Equal(t, CodeCampaignState, code(err))
				f, _ := fault.As(err)
				require.Equal(t, fault.Conflict, f.Kind)
				require.Contains(t, f.Message, "the campaign is "+from, "the message names the current status")
			})
		}
	}
	_, err := Transition(StatusScheduled, Action("archive"))
	require.Error(t, err)
	require.Empty(t, code(err), "an unknown action is a bug, not a client error")
}

func TestCheckResume(t *testing.T) {
	t.Parallel()
	cases := []struct {
		status            string
		urgent, dashboard bool
		code              string
	}{
		{StatusPaused, false, false, ""},
		{StatusPaused, false, true, ""},
		{StatusPaused, true, true, ""},
		{StatusPaused, true, false, fault.CodeForbidden},
		{StatusScheduled, true, false, CodeCampaignState}, // status first: 409 for everyone
		{StatusScheduled, false, true, CodeCampaignState},
		{StatusCancelled, false, false, CodeCampaignState},
		{StatusCompleted, true, true, CodeCampaignState},
	}
	for _, c := range cases {
		err := CheckResume(c.status, c.urgent, c.dashboard)
		require.Equal(t, c.code, code(err), "%+v", c)
	}
	f, _ := fault.As(CheckResume(StatusPaused, true, false))
	require.Equal(t, fault.Forbidden, f.Kind)
}

func TestPlanResume(t *testing.T) {
	t.Parallel()
	now := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	steps := []Step{
		{Status: StepSent, DueAt: now.Add(-time.Hour)},
		{Status: StepPending, DueAt: now.Add(-time.Minute)}, // passed while paused
		{Status: StepPending, DueAt: now},                   // due exactly now: passed too
		{Status: StepPending, DueAt: now.Add(time.Second)},
		{Status: StepFailed, DueAt: now.Add(-time.Hour)},
		{Status: StepPending, DueAt: now.Add(time.Hour)},
	}
	re, skip, done := PlanResume(steps, now)
	require.Equal(t, []int{3, 5}, re)
	require.Equal(t, []int{1, 2}, skip)
	require.False(t, done)

	re, skip, done = PlanResume(steps[:3], now)
	require.Empty(t, re)
	require.Equal(t, []int{1, 2}, skip)
	require.True(t, done, "nothing left to send: completed at once")
}

func TestDone(t *testing.T) {
	t.Parallel()
	require.True(t, Done([]Step{{Status: StepSent}, {Status: StepFailed}, {Status: StepSkipped}}))
	require.False(t, Done([]Step{{Status: StepSent}, {Status: StepPending}}))
}

func TestCheckSteps(t *testing.T) {
	t.Parallel()
	start := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	d := func(n int64) *int64 { return &n }
	ok, err := CheckSteps([]StepInput{
		{DelaySeconds: d(0), Text: " now "},
		{DelaySeconds: d(3600), TemplateID: "tpl_1", Urgent: true},
		{SendAt: "2027-01-02T09:00:00-05:00", Text: "later"},
	}, start)
	require.NoError(t, err)
	require.Len(t, ok, 3)
	require.Equal(t, start, ok[0].DueAt)
	require.Equal(t, "now", ok[0].Text)
	require.Equal(t, start.Add(time.Hour), ok[1].DueAt)
	require.True(t, ok[1].Urgent)
	require.Equal(t, time.Date(2027, 1, 2, 14, 0, 0, 0, time.UTC), ok[2].DueAt)
	require.Equal(t, time.UTC, ok[2].SendAt.Location())
	require.Nil(t, ok[2].DelaySeconds)

	bad := map[string]StepInput{
		"both times":     {SendAt: "2027-01-02T00:00:00Z", DelaySeconds: d(1), Text: "x"},
		"no time":        {Text: "x"},
		"past send_at":   {SendAt: "2027-01-01T11:00:00Z", Text: "x"},
		"send_at now":    {SendAt: "2027-01-01T12:00:00Z", Text: "x"},
		"no offset":      {SendAt: "2027-01-02T00:00:00", Text: "x"},
		"too far":        {SendAt: "2028-01-02T00:00:00Z", Text: "x"},
		"negative delay": {DelaySeconds: d(-1), Text: "x"},
		"huge delay":     {DelaySeconds: d(400 * 24 * 3600), Text: "x"},
		"both bodies":    {DelaySeconds: d(1), Text: "x", TemplateID: "tpl"},
		"no body":        {DelaySeconds: d(1), Text: "   "},
		"long text":      {DelaySeconds: d(1), Text: string(make([]rune, MaxTextRunes+1))},
	}
	for name, s := range bad {
		_, err := CheckSteps([]StepInput{{DelaySeconds: d(1), Text: "fine"}, s}, start)
		require.Equal(t, fault.CodeInvalidRequest, code(err), name)
		require.Contains(t, err.Error(), "steps[1]", name)
	}
	_, err = CheckSteps(nil, start)
	require.Equal(t, fault.CodeInvalidRequest, code(err))
	_, err = CheckSteps(make([]StepInput, MaxSteps+1), start)
	require.Equal(t, fault.CodeInvalidRequest, code(err))
}

func TestCheckName(t *testing.T) {
	t.Parallel()
	n, err := CheckName("  Tryout countdown ")
	require.NoError(t, err)
	require.Equal(t, "Tryout countdown", n)
	for _, bad := range []string{"", "   ", string(make([]rune, MaxNameRunes+1)), "\u200b\u200d", " \ufeff "} {
		_, err := CheckName(bad)
		require.Equal(t, fault.CodeInvalidRequest, code(err))
	}
}
