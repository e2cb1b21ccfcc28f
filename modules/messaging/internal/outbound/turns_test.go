package outbound

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
)

// callLog is a carrier that records when each number's call began.
type callLog struct {
	carrier.Carrier
	mu    sync.Mutex
	order []string
	at    map[string]time.Time
}

func (c *callLog) Send(_ context.Context, m carrier.Message) (carrier.Receipt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order = append(c.order, m.From)
	c.at[m.From] = time.Now()
	return carrier.Receipt{ProviderMessageID: "SM" + m.DeliveryID, Status: "queued"}, nil
}

// A pass that took two numbers hands each over at its own turn: the one
// due first is not held until the other's turn, and the later one never
// goes before its own.
func TestPassHandsEachNumberOverAtItsOwnTurn(t *testing.T) {
	calls := &callLog{at: map[string]time.Time{}}
	s := New(Deps{Carrier: calls})
	start := time.Now()
	pass := passClock{now: start, start: start}
	early, late := start.Add(5*time.Millisecond), start.Add(time.Second)
	pass.notBefore = late
	pass.turns = map[string]time.Time{"num_late": late, "num_early": early}
	texts := []outgoing{ // the later number first, as a pass may read them
		{Text: Text{DeliveryID: "d1"}, NumberID: "num_late", From: "+15550000001"},
		{Text: Text{DeliveryID: "d2"}, NumberID: "num_early", From: "+15550000002"},
	}
	res := handedOver{segments: map[string]int{}, done: map[string]time.Time{}, busy: map[string]time.Time{}, retry: map[int64]bool{}}
	results, err := s.send(context.Background(), texts, &res, pass)
	require.NoError(t, err)
	for _, r := range results {
		require.NoError(t, r.Err)
	}
	require.Equal(t, []string{"+15550000002", "+15550000001"}, calls.order, "the number due first goes first")
	require.True(t, calls.at["+15550000002"].Before(late), "the early number did not wait for the late one's turn")
	require.False(t, calls.at["+15550000001"].Before(late), "the late number waited for its turn")
	require.False(t, res.done["num_early"].Before(early))
}
