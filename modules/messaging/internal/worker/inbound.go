package worker

import (
	"context"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/platform/jobs"
)

// InboundRegistration registers the inbound workers: ingestion of texts to
// team numbers, and replies to one person (HELP and staff replies).
func InboundRegistration(svc *inbound.Service) jobs.Registration {
	return func(w *river.Workers) {
		river.AddWorker(w, &receive{svc: svc})
		river.AddWorker(w, &reply{svc: svc})
	}
}

type receive struct {
	river.WorkerDefaults[inbound.Args]
	svc *inbound.Service
}

// Work ingests one inbound text.
func (w *receive) Work(ctx context.Context, j *river.Job[inbound.Args]) error {
	return w.svc.Receive(ctx, j.Args)
}

type reply struct {
	river.WorkerDefaults[inbound.ReplyArgs]
	svc *inbound.Service
}

// Work hands one reply to the carrier.
func (w *reply) Work(ctx context.Context, j *river.Job[inbound.ReplyArgs]) error {
	return w.svc.SendReply(ctx, j.Args)
}
