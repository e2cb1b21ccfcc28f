package domain

import "time"

// Delivery states as stored. The API shows them as Status* (pending splits
// into pending and failed by the round's attempts).
const (
	StatePending   = "pending"   // an attempt is planned (or the delivery waits in its webhook's queue)
	StateSucceeded = "succeeded" // an attempt got a 2xx
	StateAbandoned = "abandoned" // every attempt of its round failed
	StateCancelled = "cancelled" // ended unsent: the webhook turned off
)

// Delivery is one event's delivery to one webhook, across its attempts.
// Attempts counts every attempt ever made; a round (the first, or one a
// retry or a recovery starts) has MaxAttempts of its own, counted from
// RoundFrom.
type Delivery struct {
	ID            string
	TeamID        string
	EventID       string
	WebhookID     string
	State         string
	Attempts      int
	NextAttemptAt *time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// RoundFrom is Attempts when the current round began; Queued: waiting
	// in the webhook's queue.
	RoundFrom int
	Queued    bool
}

// NewDelivery is a new delivery of event to webhook, its first attempt due
// at once (at the event's time).
func NewDelivery(id, teamID, eventID, webhookID string, at time.Time) Delivery {
	return Delivery{ID: id, TeamID: teamID, EventID: eventID, WebhookID: webhookID, State: StatePending,
		NextAttemptAt: &at, CreatedAt: at, UpdatedAt: at}
}

// Status is the delivery's API status.
func (d *Delivery) Status() string {
	switch d.State {
	case StateSucceeded:
		return StatusDelivered
	case StateAbandoned:
		return StatusAbandoned
	case StateCancelled:
		return StatusCancelled
	}
	if d.Attempts > d.RoundFrom {
		return StatusFailed
	}
	return StatusPending
}

// Ended reports whether no attempt is planned any more (delivered,
// abandoned or cancelled): only such a delivery may be retried.
func (d *Delivery) Ended() bool { return d.State != StatePending }

// Due reports whether attempt is the delivery's next one: it is pending at
// attempt-1. An attempt job that finds otherwise was recorded already, or
// its delivery ended, and does nothing.
func (d *Delivery) Due(attempt int) bool { return d.State == StatePending && d.Attempts == attempt-1 }

// Succeeded records attempt as a success: the delivery ends delivered.
func (d *Delivery) Succeeded(attempt int, now time.Time) {
	d.Attempts, d.State, d.NextAttemptAt, d.Queued, d.UpdatedAt = attempt, StateSucceeded, nil, false, now
}

// Failed records attempt as failed at now. The next attempt of the round
// is due after the spec's gap (NextAttempt), counted within the round;
// after the round's last attempt the delivery is abandoned; when this
// failure turned the webhook off (webhookOff) and a retry was due, it ends
// cancelled instead. It returns the next attempt's time (nil: none).
func (d *Delivery) Failed(attempt int, now time.Time, webhookOff bool) *time.Time {
	d.Attempts, d.Queued, d.UpdatedAt = attempt, false, now
	at, retry := NextAttempt(attempt-d.RoundFrom, now)
	switch {
	case !retry:
		d.State, d.NextAttemptAt = StateAbandoned, nil
	case webhookOff:
		d.State, d.NextAttemptAt = StateCancelled, nil
	default:
		d.State, d.NextAttemptAt = StatePending, &at
	}
	return d.NextAttemptAt
}

// Cancel ends a pending delivery unsent (its webhook is off); it reports
// whether it was pending.
func (d *Delivery) Cancel(now time.Time) bool {
	if d.State != StatePending {
		return false
	}
	d.State, d.NextAttemptAt, d.Queued, d.UpdatedAt = StateCancelled, nil, false, now
	return true
}

// Enqueue puts a delivery whose attempt came due under its webhook's
// throttle into the webhook's queue instead of sending it (waiting is not
// an attempt): only when attempt is due (Due) and it is not queued
// already. It reports whether it did.
func (d *Delivery) Enqueue(attempt int, now time.Time) bool {
	if !d.Due(attempt) || d.Queued {
		return false
	}
	d.Queued, d.NextAttemptAt, d.UpdatedAt = true, nil, now
	return true
}

// Restart starts a new round for an ended delivery (a retry): pending
// again, its next attempt due at now, the retry schedule counted afresh.
func (d *Delivery) Restart(now time.Time) {
	d.State, d.RoundFrom, d.NextAttemptAt, d.Queued, d.UpdatedAt = StatePending, d.Attempts, &now, false, now
}

// Recoverable reports whether a recovery since since takes the delivery:
// its event happened at or after since and it ended unsent (abandoned, or
// cancelled when the webhook turned off).
func (d *Delivery) Recoverable(since time.Time) bool {
	return !d.CreatedAt.Before(since) && (d.State == StateAbandoned || d.State == StateCancelled)
}

// Recover starts a new round in the webhook's queue (a recovery).
func (d *Delivery) Recover(now time.Time) {
	d.State, d.RoundFrom, d.NextAttemptAt, d.Queued, d.UpdatedAt = StatePending, d.Attempts, nil, true, now
}

// Attempt is one try to send a delivery, as the attempts log shows it.
type Attempt struct {
	ID            int64
	TeamID        string
	WebhookID     string
	DeliveryID    string
	EventID       string
	Attempt       int
	AttemptedAt   time.Time
	DurationUS    int64
	StatusCode    *int
	Error         *string
	Success       bool
	NextAttemptAt *time.Time
}

// Event is a stored event: the envelope exactly as it is sent. Skipped:
// the team's plan does not include the API (stored, never sent);
// WebhookID: sent to that webhook only (webhook.test).
type Event struct {
	ID        string
	TeamID    string
	Type      string
	CreatedAt time.Time
	Body      string
	Skipped   bool
	WebhookID *string
}

// Notification is an e-mail to one person, as recorded.
type Notification struct {
	ID        string
	TeamID    string
	MemberID  string
	To        string
	Subject   string
	Body      string
	Status    string
	Error     *string
	CreatedAt time.Time
	SentAt    *time.Time
}

// Work is what a delivery attempt needs, read in one query: the delivery,
// its webhook (WebhookExists false: deleted; URL, Secret and Enabled are
// then zero) and its event.
type Work struct {
	DeliveryID    string
	TeamID        string
	EventID       string
	WebhookID     string
	State         string
	Attempts      int
	WebhookExists bool
	URL           string
	Secret        string
	// PreviousSecret ("" none) signs too until PreviousUntil (a rotation's overlap).
	PreviousSecret string
	PreviousUntil  *time.Time
	Enabled        bool
	EventType      string
	Body           string
	// RoundFrom is the attempts the delivery had when its round began;
	// Queued: it waits in the webhook's queue; MaxPerSecond: the throttle.
	RoundFrom    int
	Queued       bool
	MaxPerSecond *int
}

// Due reports whether attempt is the delivery's next one (Delivery.Due).
func (w *Work) Due(attempt int) bool {
	d := Delivery{State: w.State, Attempts: w.Attempts}
	return d.Due(attempt)
}

// Listed is a delivery as the deliveries list shows it: with its event's
// type and its attempts, oldest first.
type Listed struct {
	Delivery
	EventType string
	Attempts  []Attempt
}

// Target is an enabled webhook an event goes to, with the delivery made
// for it; DeliveryID is "" when the storing statement ran out of the ids
// it was given (the publisher then stores that delivery itself).
type Target struct {
	WebhookID  string
	DeliveryID string
}

// Failure is what recording a failed attempt did: Webhook.Failed and
// Delivery.Failed applied together.
type Failure struct {
	Recorded      bool       // false: the delivery was not pending at attempt-1 (nothing written)
	NextAttemptAt *time.Time // when the next attempt is due; nil when the delivery ended
	Failures      int        // the webhook's consecutive failures, this one included
	Disabled      bool       // this failure turned the webhook off
}
