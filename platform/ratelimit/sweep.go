package ratelimit

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// SweepArgs is the periodic clean-up job of idle buckets.
type SweepArgs struct{}

// Kind names the job.
func (SweepArgs) Kind() string { return "platform.ratelimit_sweep" }

// SweepWorker runs Sweep with the largest window the service uses.
type SweepWorker struct {
	river.WorkerDefaults[SweepArgs]
	Limiter   *Limiter
	OlderThan time.Duration
}

// Work deletes idle buckets.
func (w *SweepWorker) Work(ctx context.Context, _ *river.Job[SweepArgs]) error {
	_, err := w.Limiter.Sweep(ctx, w.OlderThan)
	return err
}

// SweepSchedule runs the sweep every ten minutes on the leader node.
func SweepSchedule() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(10*time.Minute),
		func() (river.JobArgs, *river.InsertOpts) { return SweepArgs{}, nil },
		&river.PeriodicJobOpts{ID: "platform.ratelimit_sweep"})
}
