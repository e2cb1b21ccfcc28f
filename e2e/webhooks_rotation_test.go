package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	stripewebhook "github.com/stripe/stripe-go/v83/webhook"

	"github.com/teamtext/teamtext/e2e/harness"
)

// TestWebhookSecretRotation: after POST
// /webhooks/{id}/rotate-secret, receivers verifying with Stripe's own
// library — one holding only the old secret, one only the new — both
// accept deliveries during the overlap; after it only the new secret does.
// Another team's webhook id is 404 and nothing rotates.
func TestWebhookSecretRotation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rcv := newReceiver(t)
	h := startHookService(t, "wh_rotation", rcv, "CLOCK=test")
	f, api := h.team(t)
	w := whCreate(t, api, rcv.URL("/rotation"), "member.joined")

	var rotated struct {
		whHook
		RotationOverlapUntil *time.Time `json:"rotation_overlap_until"`
	}
	require.Empty(t, whAdminGet(t, h.admin, f.TeamID, w.ID).Secret, "no secret outside creation and rotation")
	_, other := h.team(t)
	require.Equal(t, 404, whDo(t, other, "POST", "/webhooks/"+w.ID+"/rotate-secret", nil).Status, "another team's webhook")
	require.NoError(t, api.Expect(ctx, 200, "POST", "/webhooks/"+w.ID+"/rotate-secret", nil, &rotated))
	require.True(t, strings.HasPrefix(rotated.Secret, "whsec_"), rotated.Secret)
	require.NotEqual(t, w.Secret, rotated.Secret)
	require.Equal(t, w.ID, rotated.ID)
	require.NotNil(t, rotated.RotationOverlapUntil)
	var clk struct {
		Now time.Time `json:"now"`
	}
	require.NoError(t, h.admin.Expect(ctx, 200, "GET", "/clock", nil, &clk))
	now := clk.Now
	require.WithinDuration(t, now.Add(24*time.Hour), *rotated.RotationOverlapUntil, time.Minute, "the default overlap is 24 h")

	verifies := func(r harness.Hook, secret string) bool {
		return stripewebhook.ValidatePayloadIgnoringTolerance(r.Body, r.Header.Get("X-Service-Signature"), secret) == nil
	}

	// During the overlap: two v1 values; either secret verifies.
	whJoin(t, h.admin, f.TeamID, map[string]any{"name": "During Overlap", "phone": "2025550911"})
	during := waitRequests(t, rcv, "/rotation", 1)[0]
	require.Equal(t, 2, strings.Count(during.Header.Get("X-Service-Signature"), "v1="), during.Header.Get("X-Service-Signature"))
	require.True(t, verifies(during, w.Secret), "a receiver holding only the old secret")
	require.True(t, verifies(during, rotated.Secret), "a receiver holding only the new secret")
	require.False(t, verifies(during, "whsec_someoneelse"))

	// After it: the new secret alone.
	h.advance(t, 24*time.Hour+time.Minute)
	whJoin(t, h.admin, f.TeamID, map[string]any{"name": "After Overlap", "phone": "2025550912"})
	after := waitRequests(t, rcv, "/rotation", 2)[1]
	require.Equal(t, 1, strings.Count(after.Header.Get("X-Service-Signature"), "v1="), after.Header.Get("X-Service-Signature"))
	require.True(t, verifies(after, rotated.Secret), "the new secret verifies")
	require.False(t, verifies(after, w.Secret), "the old secret no longer does")

	// The admin rotates too, for a key owner; the secret before it is the
	// one the overlap keeps.
	var again struct {
		whHook
		RotationOverlapUntil *time.Time `json:"rotation_overlap_until"`
	}
	require.NoError(t, h.admin.Expect(ctx, 200, "POST", "/teams/"+f.TeamID+"/webhooks/"+w.ID+"/rotate-secret",
		map[string]any{"member_id": f.CoachID}, &again))
	require.NotEqual(t, rotated.Secret, again.Secret)
	whJoin(t, h.admin, f.TeamID, map[string]any{"name": "Second Rotation", "phone": "2025550913"})
	third := waitRequests(t, rcv, "/rotation", 3)[2]
	require.True(t, verifies(third, again.Secret))
	require.True(t, verifies(third, rotated.Secret))
	require.False(t, verifies(third, w.Secret), "a second rotation keeps only the secret it replaced")
}
