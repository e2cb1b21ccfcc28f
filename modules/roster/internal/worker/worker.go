// Package worker adapts River jobs to the roster's use cases.
package worker

import (
	"context"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/jobs"
)

// Registration registers the roster's workers: the statistics refresh
// after a large import.
func Registration(svc *service.Service) jobs.Registration {
	return func(w *river.Workers) {
		river.AddWorker(w, AnalyzeMembers(svc))
	}
}

// AnalyzeMembers works the statistics refresh (service.AnalyzeMembersArgs).
func AnalyzeMembers(svc *service.Service) river.Worker[service.AnalyzeMembersArgs] {
	return river.WorkFunc(func(ctx context.Context, j *river.Job[service.AnalyzeMembersArgs]) error {
		return svc.AnalyzeMembers(ctx, j.Args)
	})
}
