// Package worker adapts River jobs to messaging's use cases.
package worker

import (
	"context"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/platform/jobs"
)

// use adapts a use case taking the job's arguments to a River worker.
func use[T river.JobArgs](f func(context.Context, T) error) river.Worker[T] {
	return river.WorkFunc(func(ctx context.Context, j *river.Job[T]) error { return f(ctx, j.Args) })
}

// Registration registers the outbound workers: fan-out to the carrier,
// status ingestion, the unconfirmed timeout, approval expiry and scheduled sends.
func Registration(svc *service.Service) jobs.Registration {
	return func(w *river.Workers) {
		river.AddWorker(w, use[service.FanoutArgs](svc.Fanout))
		river.AddWorker(w, use[carrier.StatusArgs](svc.Ingest))
		river.AddWorker(w, use[carrier.StatusBatchArgs](svc.IngestBatch))
		river.AddWorker(w, use[service.UnconfirmArgs](svc.Unconfirm))
		river.AddWorker(w, use[service.ExpireArgs](svc.Expire))
		river.AddWorker(w, use[service.ScheduledArgs](svc.RunScheduled))
	}
}

// InboundRegistration registers the inbound workers: ingestion of texts to
// team numbers, and replies to one person (HELP and staff replies).
func InboundRegistration(svc *inbound.Service) jobs.Registration {
	return func(w *river.Workers) {
		river.AddWorker(w, use[inbound.Args](svc.Receive))
		river.AddWorker(w, use[inbound.ReplyArgs](svc.SendReply))
	}
}
