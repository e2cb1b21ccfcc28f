// Package worker adapts River jobs to the roster's use cases.
package worker

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/jobs"
)

// Registration registers the roster's workers: the statistics refresh
// after a large import.
func Registration(svc *service.Service) jobs.Registration {
	return func(w *river.Workers) {
		river.AddWorker(w, AnalyzeMembers(svc))
		river.AddWorker(w, &importMembers{svc: svc})
	}
}

// importMembers works a browser import (service.ImportMembersArgs), with
// a timeout that fits the largest file.
type importMembers struct {
	river.WorkerDefaults[service.ImportMembersArgs]
	svc *service.Service
}

func (w *importMembers) Work(ctx context.Context, j *river.Job[service.ImportMembersArgs]) error {
	return w.svc.RunImport(ctx, j.Args)
}

func (w *importMembers) Timeout(*river.Job[service.ImportMembersArgs]) time.Duration {
	return service.ImportJobTimeout
}

// AnalyzeMembers works the statistics refresh (service.AnalyzeMembersArgs).
func AnalyzeMembers(svc *service.Service) river.Worker[service.AnalyzeMembersArgs] {
	return river.WorkFunc(func(ctx context.Context, j *river.Job[service.AnalyzeMembersArgs]) error {
		return svc.AnalyzeMembers(ctx, j.Args)
	})
}
