package domain

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/fault"
)

var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func TestNewWebhook(t *testing.T) {
	t.Parallel()
	n := 10
	w, err := NewWebhook("wh_1", "team_a", "https://x.test/h", []string{"member.joined", "member.joined", "message.status"},
		SourceAPI, "m_1", "key_1", &n, "whsec_x", t0)
	require.NoError(t, err)
	require.Equal(t, []string{"member.joined", "message.status"}, w.Events, "duplicates dropped, order kept")
	require.True(t, w.Enabled)
	require.Equal(t, "m_1", w.OwnerID, "the creator owns it")
	require.Equal(t, "key_1", *w.KeyID)
	require.Zero(t, w.ConsecutiveFailures)
	require.Equal(t, t0, w.CreatedAt)
	require.Equal(t, t0, w.UpdatedAt)

	dash, err := NewWebhook("wh_2", "team_a", "https://x.test/h", []string{"member.joined"}, SourceDashboard, "m_1", "", nil, "s", t0)
	require.NoError(t, err)
	require.Nil(t, dash.KeyID, "dashboard-made: no key")
	require.Nil(t, dash.MaxPerSecond)

	_, err = NewWebhook("wh_3", "team_a", "https://x.test/h", []string{"webhook.test"}, SourceAPI, "m_1", "", nil, "s", t0)
	f, ok := fault.As(err)
	require.True(t, ok)
	require.Equal(t, CodeInvalidEvents, f.Code)
	bad := MaxPerSecondLimit + 1
	_, err = NewWebhook("wh_4", "team_a", "https://x.test/h", []string{"member.joined"}, SourceAPI, "m_1", "", &bad, "s", t0)
	f, ok = fault.As(err)
	require.True(t, ok)
	require.Equal(t, fault.Invalid, f.Kind)
}

// TestWebhookTurnsOffAtTheThreshold: failures in a row count up; the one
// that reaches DisableAfter turns an enabled webhook off with reason
// consecutive_failures (once); a success starts the count again; turning
// it on clears the reason and the count.
func TestWebhookTurnsOffAtTheThreshold(t *testing.T) {
	t.Parallel()
	w := Webhook{Enabled: true, UpdatedAt: t0}
	for i := 1; i < DisableAfter; i++ {
		require.False(t, w.Failed(t0.Add(time.Duration(i)*time.Minute)), "failure %d", i)
		require.True(t, w.Enabled)
		require.Equal(t, t0, w.UpdatedAt, "a failure that changes nothing else leaves updated_at")
	}
	w.Succeeded()
	require.Zero(t, w.ConsecutiveFailures, "a success starts the count again")
	for i := 1; i < DisableAfter; i++ {
		require.False(t, w.Failed(t0))
	}
	at := t0.Add(time.Hour)
	require.True(t, w.Failed(at), "the 20th failure in a row turns it off")
	require.False(t, w.Enabled)
	require.Equal(t, DisabledConsecutiveFailures, *w.DisabledReason)
	require.Equal(t, at, w.UpdatedAt)
	require.Equal(t, DisableAfter, w.ConsecutiveFailures)

	require.False(t, w.Failed(at.Add(time.Minute)), "a webhook already off is not turned off again")
	require.Equal(t, DisableAfter+1, w.ConsecutiveFailures, "its count still grows")
	require.Equal(t, at, w.UpdatedAt)

	w.Enable("m_2", at.Add(time.Hour))
	require.True(t, w.Enabled)
	require.Nil(t, w.DisabledReason)
	require.Zero(t, w.ConsecutiveFailures)
	require.Equal(t, "m_2", w.OwnerID, "whoever turns it on owns it")

	off := Webhook{Enabled: false, ConsecutiveFailures: DisableAfter - 1}
	require.False(t, off.Failed(t0), "an off webhook (another reason) reaching the threshold keeps its reason")
	require.Nil(t, off.DisabledReason)

	require.True(t, w.Disable(DisabledCreatorInactive, t0))
	require.Equal(t, DisabledCreatorInactive, *w.DisabledReason)
	require.False(t, w.Disable(DisabledCreatorInactive, t0), "only an enabled webhook turns off")
}

// TestRotateAndSigners: a rotation keeps the replaced secret signing until
// the overlap ends; a second rotation drops the oldest.
func TestRotateAndSigners(t *testing.T) {
	t.Parallel()
	w := Webhook{Secret: "whsec_a"}
	cur, old := Signers(w.Secret, "", w.PreviousSecretUntil, t0)
	require.Equal(t, "whsec_a", cur)
	require.Empty(t, old, "never rotated")

	until := t0.Add(24 * time.Hour)
	w.Rotate("whsec_b", until, t0)
	require.Equal(t, "whsec_b", w.Secret)
	require.Equal(t, "whsec_a", *w.PreviousSecret)
	require.Equal(t, until, *w.PreviousSecretUntil)
	require.Equal(t, t0, w.UpdatedAt)
	cur, old = Signers(w.Secret, *w.PreviousSecret, w.PreviousSecretUntil, until.Add(-time.Nanosecond))
	require.Equal(t, []string{"whsec_b", "whsec_a"}, []string{cur, old}, "both sign during the overlap")
	_, old = Signers(w.Secret, *w.PreviousSecret, w.PreviousSecretUntil, until)
	require.Empty(t, old, "the overlap ends at until")

	w.Rotate("whsec_c", until, t0.Add(time.Hour))
	require.Equal(t, "whsec_b", *w.PreviousSecret, "a rotation during an overlap ends the older secret")
}

func TestSetThrottle(t *testing.T) {
	t.Parallel()
	w := Webhook{}
	n := 5
	require.NoError(t, w.SetThrottle(&n, t0))
	require.Equal(t, 5, *w.MaxPerSecond)
	require.Equal(t, t0, w.UpdatedAt)
	zero := 0
	require.Error(t, w.SetThrottle(&zero, t0.Add(time.Hour)))
	require.Equal(t, 5, *w.MaxPerSecond, "a refused throttle changes nothing")
	require.Equal(t, t0, w.UpdatedAt)
	require.NoError(t, w.SetThrottle(nil, t0))
	require.Nil(t, w.MaxPerSecond)
}

// TestWebhookTakes: an event goes to an enabled webhook of its team that
// subscribes to its type, or, for a test event, to the named webhook only
// (whatever it subscribes to).
func TestWebhookTakes(t *testing.T) {
	w := Webhook{ID: "w1", TeamID: "t1", Events: []string{"member.joined", "message.status"}, Enabled: true}
	other := "w2"
	self := "w1"
	for name, c := range map[string]struct {
		w    Webhook
		e    Event
		want bool
	}{
		"subscribed":            {w, Event{TeamID: "t1", Type: "message.status"}, true},
		"not subscribed":        {w, Event{TeamID: "t1", Type: "member.opted_out"}, false},
		"another team":          {w, Event{TeamID: "t2", Type: "member.joined"}, false},
		"off":                   {Webhook{ID: "w1", TeamID: "t1", Events: w.Events}, Event{TeamID: "t1", Type: "member.joined"}, false},
		"test event to it":      {w, Event{TeamID: "t1", Type: "webhook.test", WebhookID: &self}, true},
		"test event to another": {w, Event{TeamID: "t1", Type: "member.joined", WebhookID: &other}, false},
		"test event, off":       {Webhook{ID: "w1", TeamID: "t1"}, Event{TeamID: "t1", Type: "webhook.test", WebhookID: &self}, false},
	} {
		require.Equal(t, c.want, c.w.Takes(&c.e), name)
	}
}
