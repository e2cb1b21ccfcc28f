package postgres_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/ingest"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/events/eventstest"
	"github.com/teamtext/teamtext/platform/id"
)

// BenchmarkReportsOfOneBroadcast is status ingestion's own path
// (ingest.Service.Ingest: lock the delivery, apply, move the counts and
// the analytics, publish message.status), 16 reports at once, every one
// about another delivery of the same broadcast: how fast one broadcast's
// final reports are taken when every node's status workers ingest them
// at once. Run: go test ./modules/messaging/internal/postgres/ -run '^$'
// -bench ReportsOfOneBroadcast -benchtime 4000x
func BenchmarkReportsOfOneBroadcast(b *testing.B) {
	ctx := context.Background()
	d := srv.Migrated(b, db.PlatformMigrations(), postgres.Migrations())
	if err := eventstest.CreateTable(ctx, d); err != nil {
		b.Fatal(err)
	}
	repo := postgres.NewRepo(d, slog.New(slog.DiscardHandler))
	out := postgres.NewOutboundStore(d, repo)
	in := ingest.New(d, repo, eventstest.Table{}, clock.Real{}, slog.New(slog.DiscardHandler), nil)
	n := b.N
	msg := domain.Message{ID: "msg_bench", TeamID: "team_1", MemberID: "mem_1", Source: "api", Audience: "all", Text: "hi",
		Rendered: "hi", Encoding: "GSM-7", Segments: 1, Recipients: n, Status: domain.StatusQueued, CreatedAt: time.Now()}
	phones, members := make([]string, n), make([][]string, n)
	for i := range phones {
		phones[i], members[i] = fmt.Sprintf("+1555%07d", i), []string{fmt.Sprint("mem_", i)}
	}
	err := d.Tx(ctx, func(ctx context.Context) error {
		if err := repo.InsertMessage(ctx, &msg); err != nil {
			return err
		}
		return repo.InsertQueued(ctx, "team_1", msg.ID, msg.CreatedAt, msg.CreatedAt, id.NewSeries("dlv"), phones, members, nil, nil)
	})
	if err != nil {
		b.Fatal(err)
	}
	ds, err := repo.Deliveries(ctx, "team_1", msg.ID, "", n, 0)
	if err != nil || len(ds) != n {
		b.Fatalf("deliveries: %d, %v", len(ds), err)
	}
	ss := make([]outbound.Sent, n)
	for i, x := range ds {
		ss[i] = outbound.Sent{DeliveryID: x.ID, ProviderMessageID: "SM" + x.ID, CarrierStatus: "queued"}
	}
	if err := d.Tx(ctx, func(ctx context.Context) error { return out.MarkSent(ctx, ss, time.Now()) }); err != nil {
		b.Fatal(err)
	}
	dbtest.BenchParallel(b, 16, func(ctx context.Context, i int) error {
		return in.Ingest(ctx, carrier.StatusArgs{DeliveryID: ds[i].ID, ProviderMessageID: "SM" + ds[i].ID, Status: domain.DeliveryDelivered,
			CarrierStatus: "delivered", At: time.Now()})
	})
	dbtest.PerSecond(b, 1, "reports")
	b.StopTimer()
	got, err := repo.Message(ctx, "team_1", msg.ID)
	if err != nil || got.DeliveredCount != n {
		b.Fatalf("delivered count %d of %d: %v", got.DeliveredCount, n, err)
	}
}
