package ingest

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/loops"
)

// Ingestion in batches. A carrier's status callback stages its report
// (Sink.Report: one insert, and a notification after its commit); the
// filers (loops.Filer, FileNext) take a lane's staged reports in batches
// and ingest each batch in one transaction (Apply), with a fixed number of
// statements whatever its size. A lane is a hash of the reported
// delivery's message, and one filer at a time works a lane, so one
// message's counts are moved by one batch at a time, with no other batch
// waiting on its row.

// StatusBatchSize is the most statuses one ingestion transaction takes.
const StatusBatchSize = 500

// StatusGather is how long the status filers let reports gather once
// woken: a broadcast's reports arrive hundreds a second, and a tenth of a
// second of them makes one batch instead of dozens, at no cost anyone
// sees (message.status is late by as much).
const StatusGather = 100 * time.Millisecond

// Staging is what staging and filing reports need of the database.
type Staging interface {
	// StageStatus stages a report, staged at at, and wakes the filers
	// once it commits.
	StageStatus(ctx context.Context, p domain.PendingStatus, at time.Time) error
	// LockStatusLane takes, for the transaction, a lane with staged
	// reports that no other filer holds, trying from first on; -1 if none.
	LockStatusLane(ctx context.Context, first int) (int, error)
	// TakeStatuses removes up to limit staged reports of a locked lane,
	// oldest first.
	TakeStatuses(ctx context.Context, lane, limit int) ([]domain.PendingStatus, error)
	// NoteStatusFailure counts a failed attempt to ingest one report alone.
	NoteStatusFailure(ctx context.Context, id int64, cause string) error
}

// pending is a carrier's normalised status as it is staged.
func pending(a carrier.StatusArgs) domain.PendingStatus {
	return domain.PendingStatus{DeliveryID: a.DeliveryID, ProviderMessageID: a.ProviderMessageID, Status: a.Status,
		CarrierStatus: a.CarrierStatus, ErrorCode: a.ErrorCode, ErrorMessage: a.ErrorMessage, ReportedAt: a.At}
}

// FileNext ingests one batch of a lane's staged reports in one
// transaction, trying the lanes from first on. It returns when each report
// it took was staged (none: no lane had reports that another filer did
// not hold). A batch that fails is ingested again report by report
// (loops.FileNext); a report that fails on its own
// domain.StatusMaxAttempts times is set aside (logged, kept staged for an
// operator, no longer taken).
func (s *Service) FileNext(ctx context.Context, first int) ([]time.Time, error) {
	return loops.FileNext(ctx, first, StatusBatchSize, s.fileBatch, func(ctx context.Context, p domain.PendingStatus, err error) error {
		s.log.Error("delivery status not ingested", "delivery_id", p.DeliveryID, "status", p.Status, "staged_id", p.ID, "err", err)
		return s.staging.NoteStatusFailure(ctx, p.ID, err.Error())
	}, s.log)
}

// fileBatch takes up to limit reports of a lane and ingests them in one
// transaction; it returns what it took even when ingesting failed (and
// the transaction rolled back).
func (s *Service) fileBatch(ctx context.Context, first, limit int) ([]time.Time, []domain.PendingStatus, error) {
	var staged []time.Time
	var taken []domain.PendingStatus
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		lane, err := s.staging.LockStatusLane(ctx, first)
		if err != nil || lane < 0 {
			return err
		}
		ps, err := s.staging.TakeStatuses(ctx, lane, limit)
		if err != nil {
			return err
		}
		taken = ps
		as := make([]carrier.StatusArgs, len(ps))
		staged = make([]time.Time, len(ps))
		for i, p := range ps {
			as[i] = carrier.StatusArgs{DeliveryID: p.DeliveryID, ProviderMessageID: p.ProviderMessageID, Status: p.Status,
				CarrierStatus: p.CarrierStatus, ErrorCode: p.ErrorCode, ErrorMessage: p.ErrorMessage, At: p.ReportedAt}
			staged[i] = p.StagedAt
		}
		return s.Apply(ctx, as)
	})
	if err != nil {
		return nil, taken, err
	}
	return staged, taken, nil
}
