// Package worker adapts River jobs to messaging's use cases.
package worker

import (
	"context"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/platform/jobs"
)

// Registration registers every messaging worker.
func Registration(svc *service.Service) jobs.Registration {
	return func(w *river.Workers) {
		river.AddWorker(w, &fanout{svc: svc})
		river.AddWorker(w, &ingest{svc: svc})
		river.AddWorker(w, &unconfirm{svc: svc})
		river.AddWorker(w, &expire{svc: svc})
		river.AddWorker(w, &scheduled{svc: svc})
	}
}

type fanout struct {
	river.WorkerDefaults[service.FanoutArgs]
	svc *service.Service
}

// Work hands one batch to the carrier (within JOB_TIMEOUT).
func (w *fanout) Work(ctx context.Context, j *river.Job[service.FanoutArgs]) error {
	return w.svc.Fanout(ctx, j.Args)
}

type ingest struct {
	river.WorkerDefaults[carrier.StatusArgs]
	svc *service.Service
}

func (w *ingest) Work(ctx context.Context, j *river.Job[carrier.StatusArgs]) error {
	return w.svc.Ingest(ctx, j.Args)
}

type unconfirm struct {
	river.WorkerDefaults[service.UnconfirmArgs]
	svc *service.Service
}

func (w *unconfirm) Work(ctx context.Context, j *river.Job[service.UnconfirmArgs]) error {
	return w.svc.Unconfirm(ctx, j.Args)
}

type expire struct {
	river.WorkerDefaults[service.ExpireArgs]
	svc *service.Service
}

func (w *expire) Work(ctx context.Context, j *river.Job[service.ExpireArgs]) error {
	return w.svc.Expire(ctx, j.Args)
}

type scheduled struct {
	river.WorkerDefaults[service.ScheduledArgs]
	svc *service.Service
}

func (w *scheduled) Work(ctx context.Context, j *river.Job[service.ScheduledArgs]) error {
	return w.svc.RunScheduled(ctx, j.Args)
}
