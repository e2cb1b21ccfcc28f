// Package worker holds the webhooks module's River workers: one delivery
// attempt per job, and handing recorded e-mail to the SMTP relay.
package worker

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/modules/webhooks/internal/mail"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/jobs"
)

// Deliverer runs one delivery attempt (*service.Service).
type Deliverer interface {
	Deliver(ctx context.Context, a domain.DeliverArgs) error
}

// DeliverWorker works domain.DeliverArgs. Retries of a failed delivery are
// new jobs scheduled by the service; River's own retries only cover
// failures to record (a database error), which the service makes safe.
type DeliverWorker struct {
	river.WorkerDefaults[domain.DeliverArgs]
	svc Deliverer
}

// NewDeliverWorker returns the delivery worker calling svc.
func NewDeliverWorker(svc Deliverer) *DeliverWorker { return &DeliverWorker{svc: svc} }

// Timeout leaves room for the 10 s request and the recording transaction.
func (*DeliverWorker) Timeout(*river.Job[domain.DeliverArgs]) time.Duration { return 30 * time.Second }

// Work makes the attempt.
func (w *DeliverWorker) Work(ctx context.Context, job *river.Job[domain.DeliverArgs]) error {
	return w.svc.Deliver(ctx, job.Args)
}

// Pumper sends a webhook's queued deliveries (*service.Service).
type Pumper interface {
	Pump(ctx context.Context, a domain.PumpArgs) (next time.Time, done bool, err error)
}

// PumpWorker works domain.PumpArgs: a pass over the webhook's queue, then
// a snooze until its next slot (never a sleep in the worker), until the
// queue is empty. A pass that fails (Postgres away) snoozes too: the
// pump's job must live as long as its queue has deliveries.
type PumpWorker struct {
	river.WorkerDefaults[domain.PumpArgs]
	svc   Pumper
	clock clock.Clock
	log   *slog.Logger
}

// NewPumpWorker returns the pump worker calling svc.
func NewPumpWorker(svc Pumper, clk clock.Clock, log *slog.Logger) *PumpWorker {
	return &PumpWorker{svc: svc, clock: clk, log: log}
}

// Timeout leaves room for a pass (2 s) and its last 10 s request.
func (*PumpWorker) Timeout(*river.Job[domain.PumpArgs]) time.Duration { return 30 * time.Second }

// pumpRetry is the snooze after a failed pass.
const pumpRetry = time.Second

// Work runs a pass.
func (w *PumpWorker) Work(ctx context.Context, job *river.Job[domain.PumpArgs]) error {
	next, done, err := w.svc.Pump(ctx, job.Args)
	if err != nil {
		w.log.Warn("webhook pump pass failed; retrying", "team_id", job.Args.TeamID, "webhook_id", job.Args.WebhookID,
			"err", err, "retry_in", pumpRetry)
		return river.JobSnooze(pumpRetry)
	}
	if done {
		return nil
	}
	return river.JobSnooze(max(next.Sub(w.clock.Now()), 0))
}

// MailSender hands a queued e-mail to the relay (*mail.SMTP).
type MailSender interface {
	Deliver(ctx context.Context, a mail.SendArgs, final bool) error
}

// MailWorker works mail.SendArgs.
type MailWorker struct {
	river.WorkerDefaults[mail.SendArgs]
	smtp MailSender
}

// NewMailWorker returns the e-mail worker handing mail to smtp: nil when
// no relay is configured (the job is then never inserted).
func NewMailWorker(smtp MailSender) *MailWorker { return &MailWorker{smtp: smtp} }

// Work sends the e-mail; the last attempt marks a failure permanent.
func (w *MailWorker) Work(ctx context.Context, job *river.Job[mail.SendArgs]) error {
	if w.smtp == nil {
		return nil
	}
	return w.smtp.Deliver(ctx, job.Args, job.Attempt >= job.MaxAttempts)
}

// Registration adds the workers to the process's River.
func Registration(d *DeliverWorker, p *PumpWorker, m *MailWorker) jobs.Registration {
	return func(ws *river.Workers) {
		river.AddWorker(ws, d)
		river.AddWorker(ws, p)
		river.AddWorker(ws, m)
	}
}
