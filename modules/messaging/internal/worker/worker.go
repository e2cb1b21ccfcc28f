// Package worker adapts River jobs to messaging's use cases.
package worker

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/simulator"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/ingest"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/config"
	"github.com/teamtext/teamtext/platform/jobs"
)

// pumpPoll is how often the engine's and status queues look for jobs that
// came due without a notification (the simulator's report pump, snoozed).
const pumpPoll = 50 * time.Millisecond

// Queues are messaging's River queues, sized by cfg.
func Queues(cfg config.Config) []jobs.Queue {
	return []jobs.Queue{
		{Name: outbound.Queue, MaxWorkers: cfg.OutboundWorkers, FetchPollInterval: pumpPoll},
		{Name: carrier.StatusQueue, MaxWorkers: cfg.StatusWorkers, FetchPollInterval: pumpPoll},
		{Name: inbound.Queue, MaxWorkers: cfg.InboundWorkers},
	}
}

// use adapts a use case taking the job's arguments to a River worker.
func use[T river.JobArgs](f func(context.Context, T) error) river.Worker[T] {
	return river.WorkFunc(func(ctx context.Context, j *river.Job[T]) error { return f(ctx, j.Args) })
}

// loop adapts a perpetual job (a pump): it works, then snoozes until the
// instant the use case names, so it never sleeps in a worker slot.
func loop[T river.JobArgs](clk clock.Clock, f func(context.Context, T) (time.Time, error)) river.Worker[T] {
	return river.WorkFunc(func(ctx context.Context, j *river.Job[T]) error {
		next, err := f(ctx, j.Args)
		if err != nil {
			return err
		}
		return river.JobSnooze(max(next.Sub(clk.Now()), 0))
	})
}

// Outbound registers the sending side: sends' fan-out and the kicked
// passes that hand paced slots over (outbound.Dispatcher runs the rest),
// status ingestion, the unconfirmed timeout,
// approval expiry and scheduled sends.
func Outbound(svc *service.Service, ob *outbound.Service, in *ingest.Service, clk clock.Clock) jobs.Registration {
	return func(w *river.Workers) {
		river.AddWorker(w, use[outbound.FanoutArgs](ob.Fanout))
		river.AddWorker(w, use[outbound.PumpArgs](func(ctx context.Context, _ outbound.PumpArgs) error { // retires an earlier version's pump
			_, err := ob.Pass(ctx)
			return err
		}))
		river.AddWorker(w, use[outbound.KickArgs](func(ctx context.Context, _ outbound.KickArgs) error {
			_, err := ob.Pass(ctx)
			return err
		}))
		river.AddWorker(w, use[EnsureArgs](func(context.Context, EnsureArgs) error { return nil }))
		river.AddWorker(w, use[carrier.StatusArgs](in.Ingest))
		river.AddWorker(w, use[carrier.StatusBatchArgs](in.IngestBatch))
		river.AddWorker(w, use[ingest.UnconfirmArgs](in.Unconfirm))
		river.AddWorker(w, use[service.ExpireArgs](svc.Expire))
		river.AddWorker(w, use[service.ScheduledArgs](svc.RunScheduled))
	}
}

// EnsureArgs was the leader's periodic check that every pump exists,
// before the Dispatcher; a job of it left in the queue ends at once.
type EnsureArgs struct{}

// Kind names the job.
func (EnsureArgs) Kind() string { return "messaging.ensure_pumps" }

// Simulator registers the simulated carrier's report pump.
func Simulator(sim *simulator.Simulator, clk clock.Clock) jobs.Registration {
	return func(w *river.Workers) {
		river.AddWorker(w, loop(clk, func(ctx context.Context, _ simulator.ReportsArgs) (time.Time, error) { return sim.PostDue(ctx) }))
	}
}

// Inbound registers the inbound workers: ingestion of texts to team
// numbers (observing how long after the carrier's callback each is
// ingested, unless lag is nil), and replies to one person (HELP and staff
// replies).
func Inbound(svc *inbound.Service, replies *inbound.Replies, clk clock.Clock, lag prometheus.Observer) jobs.Registration {
	return func(w *river.Workers) {
		river.AddWorker(w, use[inbound.Args](func(ctx context.Context, a inbound.Args) error {
			if err := svc.Receive(ctx, a); err != nil {
				return err
			}
			if lag != nil {
				lag.Observe(max(clk.Now().Sub(a.ReceivedAt), 0).Seconds())
			}
			return nil
		}))
		river.AddWorker(w, use[inbound.ReplyArgs](replies.SendReply))
	}
}
