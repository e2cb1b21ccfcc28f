package db

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

// Notifier wakes the listeners of one channel (LISTEN, on any node) after
// work they should look at has committed. A NOTIFY inside each writer's
// transaction would do that, but Postgres lets one notifying transaction
// commit at a time (it holds one lock for the whole database from before
// its commit to the end), so a burst of writers queues on that lock: the
// inbound callbacks spent most of their time there, and each NOTIFY wakes
// every listener once more. Notify sends the NOTIFY in a statement of its
// own instead, after the writer's commit (call it through AfterCommit),
// and coalesces: while one is in flight, any number of calls ask for one
// more, sent when it returns. Every call is followed by a NOTIFY that
// starts after it, so listeners look after the writer's commit.
//
// A NOTIFY that fails is logged and not retried: listeners must have a
// fallback for notifications they miss (a poll), as they need one for the
// time their own connection is down.
type Notifier struct {
	db      *DB
	channel string
	log     *slog.Logger // may be nil
	state   atomic.Int32 // notifyIdle, notifySending or notifyAgain
}

const (
	notifyIdle    = iota // no NOTIFY in flight
	notifySending        // one in flight, nobody asked since it started
	notifyAgain          // one in flight, and another asked for after it
)

// notifyTimeout bounds one NOTIFY statement.
const notifyTimeout = 5 * time.Second

// NewNotifier returns the notifier of channel (an identifier: it is sent
// as pg_notify's argument). log may be nil.
func NewNotifier(d *DB, channel string, log *slog.Logger) *Notifier {
	return &Notifier{db: d, channel: channel, log: log}
}

// Notify makes a NOTIFY start after it returns, on a goroutine of its own:
// it never waits for the database.
func (n *Notifier) Notify() {
	for {
		switch n.state.Load() {
		case notifyIdle:
			if n.state.CompareAndSwap(notifyIdle, notifySending) {
				go n.send()
				return
			}
		case notifySending:
			if n.state.CompareAndSwap(notifySending, notifyAgain) {
				return
			}
		default: // one more is already asked for; it starts after this call
			return
		}
	}
}

// send sends NOTIFYs until nobody asked for another while one was in flight.
func (n *Notifier) send() {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
		_, err := n.db.Pool.Exec(ctx, `SELECT pg_notify($1, '')`, n.channel)
		cancel()
		if err != nil && n.log != nil {
			n.log.Warn("notification not sent; listeners will find the work when they next poll", "channel", n.channel, "err", err)
		}
		if n.state.CompareAndSwap(notifySending, notifyIdle) {
			return
		}
		n.state.Store(notifySending) // it was notifyAgain: one more
	}
}
