package domain

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/fault"
)

func TestNewCampaign(t *testing.T) {
	t.Parallel()
	now := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	delay := int64(60)
	n := 0
	c, steps := NewCampaign("cmp_1", "team_1", "mem_1", "Season", "group", "grp_1",
		[]NewStep{{DueAt: now.Add(time.Hour), Text: "a"}, {DelaySeconds: &delay, DueAt: now.Add(time.Minute), TemplateID: "tpl_1", Urgent: true}},
		now, func() string { n++; return "cstep_" + string(rune('0'+n)) })
	require.Equal(t, Campaign{ID: "cmp_1", TeamID: "team_1", Name: "Season", Audience: "group", GroupID: "grp_1", Status: StatusScheduled,
		Generation: 1, CreatedBy: "mem_1", CreatedAt: now, StartedAt: now, UpdatedAt: now}, c)
	require.Equal(t, []Step{
		{ID: "cstep_1", TeamID: "team_1", CampaignID: "cmp_1", Position: 1, DueAt: now.Add(time.Hour), Text: "a", Status: StepPending, UpdatedAt: now},
		{ID: "cstep_2", TeamID: "team_1", CampaignID: "cmp_1", Position: 2, DelaySeconds: &delay, DueAt: now.Add(time.Minute), TemplateID: "tpl_1",
			Urgent: true, Status: StepPending, UpdatedAt: now},
	}, steps)
	require.True(t, HasUrgent(steps))
	require.False(t, HasUrgent(steps[:1]))
}

func TestCampaignChanges(t *testing.T) {
	t.Parallel()
	now := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	later := now.Add(time.Hour)
	c := Campaign{Status: StatusScheduled, Generation: 1}
	require.True(t, c.Runs(1))
	require.False(t, c.Runs(0), "a job of an earlier schedule")

	c.Touch(now)
	require.Equal(t, 2, c.Generation)
	require.Equal(t, now, c.UpdatedAt)
	require.NoError(t, c.Pause(now))
	require.Equal(t, StatusPaused, c.Status)
	require.Equal(t, now, *c.PausedAt)
	require.False(t, c.Runs(2), "a paused campaign runs nothing")
	f, ok := fault.As(c.Pause(later))
	require.True(t, ok)
	require.Equal(t, CodeCampaignState, f.Code)

	resumed := c
	resumed.Resumed(false, later)
	require.Equal(t, StatusScheduled, resumed.Status)
	require.Nil(t, resumed.PausedAt)
	require.Nil(t, resumed.CompletedAt)
	done := c
	done.Resumed(true, later)
	require.Equal(t, StatusCompleted, done.Status)
	require.Equal(t, later, *done.CompletedAt)
	require.Nil(t, done.PausedAt)

	require.NoError(t, c.Cancel(later))
	require.Equal(t, StatusCancelled, c.Status)
	require.Equal(t, later, *c.CancelledAt)
	require.Nil(t, c.PausedAt, "a cancelled campaign is no longer paused")
	_, ok = fault.As(c.Cancel(later))
	require.True(t, ok, "cancelled is final")
}

func TestStepOutcomes(t *testing.T) {
	t.Parallel()
	now := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	s := Step{Status: StepPending}
	s.Sent("msg_1", now)
	require.Equal(t, Step{Status: StepSent, MessageID: "msg_1", SentAt: &now, UpdatedAt: now}, s)
	f := Step{Status: StepPending}
	f.Failed("trial_limit", "no credits", now)
	require.Equal(t, Step{Status: StepFailed, ErrorCode: "trial_limit", ErrorMessage: "no credits", UpdatedAt: now}, f)
}
