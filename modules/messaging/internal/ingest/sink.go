package ingest

import (
	"context"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/text"
)

// Sink is how carrier adapters hand messaging their callbacks: each only
// stages what it carries, in one statement, for the filers: a status for
// ingestion (staged.go), a text for filing (inbound.Enqueue).
type Sink struct {
	Statuses Staging
	Stage    inbound.Stager
	Clock    clock.Clock
}

var _ carrier.Sink = Sink{}

// Report and Receive keep what the carrier sent as Postgres can store it
// (text.Storable): a carrier's text is kept, not refused, and a NUL in it
// must not fail the callback forever (the carrier would retry it).
func (s Sink) Report(ctx context.Context, a carrier.StatusArgs) error {
	a.ProviderMessageID, a.CarrierStatus = text.Storable(a.ProviderMessageID), text.Storable(a.CarrierStatus)
	a.ErrorCode, a.ErrorMessage = text.Storable(a.ErrorCode), text.Storable(a.ErrorMessage)
	return s.Statuses.StageStatus(ctx, pending(a), s.Clock.Now())
}

func (s Sink) Receive(ctx context.Context, t carrier.InboundText) error {
	return inbound.Enqueue(ctx, s.Stage, inbound.Args{From: t.From, To: t.To, Body: text.Storable(t.Body),
		ProviderMessageID: text.Storable(t.ProviderMessageID), ReceivedAt: t.ReceivedAt})
}
