package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/client"
	"github.com/teamtext/teamtext/e2e/harness"
)

// TestIntegratorDayWithGeneratedClient walks an integrator's day through
// the generated Go client only (its exchanges are recorded, so the
// contract check covers them too): add a member, estimate, send, read the
// message and its deliveries, subscribe a webhook, record an opt-out.
func TestIntegratorDayWithGeneratedClient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rcv := newReceiver(t)
	h := startHookService(t, "client_journey", rcv)
	f, err := harness.NewTeam(ctx, h.admin, harness.TeamOptions{Extra: map[string]any{"number": teamNumber()}})
	require.NoError(t, err)

	c, err := client.NewClientWithResponses(h.svc.PublicURL+"/api/v1", client.WithKey(f.Key), client.WithHTTPClient(harness.HTTPClient()))
	require.NoError(t, err)

	member, err := c.CreateMemberWithResponse(ctx, client.CreateMemberRequest{Name: "Jordan Lee", Phone: "(202) 555-0401", Role: ptr("athlete")})
	require.NoError(t, err)
	require.Equal(t, 201, member.StatusCode(), string(member.Body))
	require.Equal(t, "+12025550401", member.JSON201.Data.Phone)
	memberID := member.JSON201.Data.Id

	body := client.SendBody{Text: ptr("Practice moved to 6pm."), Audience: client.SendBodyAudienceFamilies}
	est, err := c.EstimateMessageWithResponse(ctx, body)
	require.NoError(t, err)
	require.Equal(t, 200, est.StatusCode(), string(est.Body))
	require.Equal(t, int64(1), est.JSON200.Data.Recipients)
	require.Equal(t, client.EstimateEncodingGSM7, est.JSON200.Data.Encoding)

	sent, err := c.SendMessageWithResponse(ctx, &client.SendMessageParams{IdempotencyKey: ptr("day-1")}, body)
	require.NoError(t, err)
	require.Equal(t, 201, sent.StatusCode(), string(sent.Body))
	require.Equal(t, client.SendResultKindMessage, sent.JSON201.Data.Kind)
	messageID := sent.JSON201.Data.Id
	waitFor(t, 30*time.Second, func() bool { return deliveries(t, h.url, messageID, "delivered") == 1 })

	msg, err := c.GetMessageWithResponse(ctx, messageID)
	require.NoError(t, err)
	require.Equal(t, 200, msg.StatusCode(), string(msg.Body))
	require.Equal(t, int64(1), msg.JSON200.Data.DeliveryCounts.Delivered)
	dels, err := c.ListDeliveriesWithResponse(ctx, messageID, &client.ListDeliveriesParams{Limit: ptr(int64(10))})
	require.NoError(t, err)
	require.Equal(t, 200, dels.StatusCode(), string(dels.Body))
	require.Len(t, dels.JSON200.Data, 1)
	require.Equal(t, client.DeliveryStatusDelivered, dels.JSON200.Data[0].Status)
	require.Equal(t, "***0401", dels.JSON200.Data[0].Phone)
	require.Equal(t, []string{memberID}, dels.JSON200.Data[0].MemberIds)
	require.Nil(t, dels.JSON200.Pagination.NextOffset)

	hook, err := c.CreateWebhookWithResponse(ctx, client.NewBody{Url: ptr(rcv.URL("/events")), Events: &[]string{"member.opted_out", "message.status"}})
	require.NoError(t, err)
	require.Equal(t, 201, hook.StatusCode(), string(hook.Body))
	require.True(t, strings.HasPrefix(hook.JSON201.Data.Secret, "whsec_"))

	out, err := c.CreateOptOutWithResponse(ctx, client.CreateOptOutRequest{MemberId: &memberID})
	require.NoError(t, err)
	require.Equal(t, 200, out.StatusCode(), string(out.Body))
	require.Equal(t, []string{memberID}, out.JSON200.Data.MemberIds)

	// A refusal arrives typed too: the number opted out.
	again, err := c.CreateMemberWithResponse(ctx, client.CreateMemberRequest{Name: "Jordan Lee", Phone: "2025550401"})
	require.NoError(t, err)
	require.Equal(t, 409, again.StatusCode())
	require.Equal(t, "opted_out", again.JSON409.Error.Code)
}

func ptr[T any](v T) *T { return &v }
