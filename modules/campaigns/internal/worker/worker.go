// Package worker adapts River jobs to the campaigns use cases.
package worker

import (
	"context"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/campaigns/internal/service"
	"github.com/teamtext/teamtext/platform/jobs"
)

// Registration registers the campaign step worker.
func Registration(svc *service.Service) jobs.Registration {
	return func(w *river.Workers) {
		river.AddWorker(w, &step{svc: svc})
	}
}

type step struct {
	river.WorkerDefaults[service.StepArgs]
	svc *service.Service
}

func (w *step) Work(ctx context.Context, j *river.Job[service.StepArgs]) error {
	return w.svc.RunStep(ctx, j.Args)
}
