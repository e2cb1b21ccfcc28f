package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/id"
)

// TestStatusMovesFollowTheDomain: the statements that move deliveries
// between statuses keep the message's counts in SQL (moveCounts), and
// MarkSent applies the carrier's acceptance set-based. Over random rounds
// of random reports (any status, so also backwards and sideways ones) on
// random deliveries of two messages, the deliveries stored are what
// domain.Delivery.Apply leaves, and each message's counts are the number
// of its deliveries in each status, as the domain's deliveries tally.
func TestStatusMovesFollowTheDomain(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, seed>>1))
	ctx := context.Background()
	d := srv.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	repo := postgres.NewRepo(d, nil)
	send, dlv, out := repo, repo, postgres.NewOutboundStore(d, repo)

	msgs := []string{"msg_1", "msg_2"}
	model := map[string]*domain.Delivery{} // id → the domain's view
	var ids []string
	for i, m := range msgs {
		n := 12 + 4*i
		phones, members := make([]string, n), make([][]string, n)
		for j := range phones {
			phones[j], members[j] = fmt.Sprintf("+1555%07d", 100*i+j), []string{"mem"}
		}
		msg := domain.Message{ID: m, TeamID: "team_1", MemberID: "mem_1", Source: "api", Audience: "group", Text: "hi",
			Rendered: "hi", Encoding: "GSM-7", Segments: 1, Recipients: n, Status: domain.StatusQueued, CreatedAt: at}
		inTx(t, d, func(ctx context.Context) error {
			if err := send.InsertMessage(ctx, &msg); err != nil {
				return err
			}
			return send.InsertQueued(ctx, "team_1", m, at, at, id.NewSeries("dlv"), phones, members, nil, nil)
		})
		ds, err := send.Deliveries(ctx, "team_1", m, "", 100, 0)
		require.NoError(t, err)
		require.Len(t, ds, n)
		for j := range ds {
			c := ds[j]
			model[c.ID] = &c
			ids = append(ids, c.ID)
		}
	}
	statuses := []string{domain.DeliveryQueued, domain.DeliverySent, domain.DeliveryDelivered, domain.DeliveryFailed, domain.DeliveryUnconfirmed}
	moved := map[string]bool{}
	for round := range 40 {
		now := at.Add(time.Duration(round+1) * time.Minute)
		pick := map[string]bool{}
		for range 1 + rnd.IntN(8) {
			pick[ids[rnd.IntN(len(ids))]] = true
		}
		var picked []string
		for id := range pick {
			picked = append(picked, id)
		}
		// The first round is always the carrier's acceptance: while every
		// delivery is still queued it moves them (later rounds, on
		// deliveries most of which have a final status by then, could all
		// leave "marked sent" unreached and fail the run).
		if round == 0 || rnd.IntN(4) == 0 {
			// The carrier accepted them: MarkSent, a sent report each.
			var ss []outbound.Sent
			for _, id := range picked {
				s := outbound.Sent{DeliveryID: id, ProviderMessageID: "SM" + id, CarrierStatus: "accepted"}
				ss = append(ss, s)
				if model[id].Apply(domain.Report{Status: domain.DeliverySent, CarrierStatus: s.CarrierStatus, ProviderMessageID: s.ProviderMessageID, At: now}) {
					moved["marked sent"] = true
				}
			}
			inTx(t, d, func(ctx context.Context) error { return out.MarkSent(ctx, ss, now) })
		} else {
			// Status reports, as ingestion applies them: lock, Apply, write the changed ones.
			inTx(t, d, func(ctx context.Context) error {
				locked, err := dlv.LockDeliveries(ctx, picked)
				if err != nil {
					return err
				}
				var upd []domain.Delivery
				var from []string
				for i := range locked {
					l := &locked[i]
					r := domain.Report{Status: statuses[rnd.IntN(len(statuses))], CarrierStatus: fmt.Sprint("cs", round),
						ProviderMessageID: fmt.Sprint("SM", round), At: now}
					if r.Status == domain.DeliveryFailed {
						r.ErrorCode, r.ErrorMessage = "30003", "unreachable"
					}
					old := l.Status
					changed := l.Apply(r)
					require.Equal(t, changed, model[l.ID].Apply(r), "the stored delivery and the model agree")
					if changed {
						upd, from = append(upd, *l), append(from, old)
						moved["from "+old] = true
					} else {
						moved["ignored"] = true
					}
				}
				return dlv.UpdateDeliveries(ctx, upd, from)
			})
		}
		msg := fmt.Sprintf("round %d", round)
		for _, m := range msgs {
			ds, err := send.Deliveries(ctx, "team_1", m, "", 100, 0)
			require.NoError(t, err)
			tally := map[string]int{}
			for _, g := range ds {
				w := model[g.ID]
				require.Equal(t, w.Status, g.Status, msg+" "+g.ID)
				require.Equal(t, w.CarrierStatus, g.CarrierStatus, msg+" "+g.ID)
				require.Equal(t, w.ProviderMessageID, g.ProviderMessageID, msg+" "+g.ID)
				require.Equal(t, w.ErrorCode, g.ErrorCode, msg+" "+g.ID)
				require.Equal(t, w.SentAt == nil, g.SentAt == nil, msg+" "+g.ID)
				require.True(t, w.UpdatedAt.Equal(g.UpdatedAt), msg+" "+g.ID)
				tally[w.Status]++
			}
			got, err := send.Message(ctx, "team_1", m)
			require.NoError(t, err)
			require.Equal(t, map[string]int{domain.DeliveryQueued: tally[domain.DeliveryQueued], domain.DeliverySent: tally[domain.DeliverySent],
				domain.DeliveryDelivered: tally[domain.DeliveryDelivered], domain.DeliveryFailed: tally[domain.DeliveryFailed],
				domain.DeliveryUnconfirmed: tally[domain.DeliveryUnconfirmed]},
				map[string]int{domain.DeliveryQueued: got.QueuedCount, domain.DeliverySent: got.SentCount, domain.DeliveryDelivered: got.DeliveredCount,
					domain.DeliveryFailed: got.FailedCount, domain.DeliveryUnconfirmed: got.UnconfirmedCount}, msg+" "+m)
		}
	}
	for _, c := range []string{"marked sent", "ignored", "from " + domain.DeliveryQueued, "from " + domain.DeliverySent} {
		require.True(t, moved[c], "the random reports reached %q", c)
	}
}
