package service

import (
	"context"
	"log/slog"
	"time"

	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
)

// KeyStopper stops a revoked key's pending scheduled sends (postgres.Repo).
type KeyStopper interface {
	StopKeyScheduled(ctx context.Context, keyID, reason string, at time.Time) (int, error)
}

// KeyRevoked stops a revoked key's scheduled sends. It depends on the
// repository only, so roster (which calls it) and messaging's service (which
// needs roster's directory) do not form a cycle.
type KeyRevoked struct {
	store KeyStopper
	clock clock.Clock
	log   *slog.Logger
}

var _ rosterapi.KeyRevokedListener = (*KeyRevoked)(nil)

// NewKeyRevoked returns roster's key_revoked listener.
func NewKeyRevoked(store KeyStopper, clk clock.Clock, log *slog.Logger) *KeyRevoked {
	return &KeyRevoked{store: store, clock: clk, log: log}
}

// OnKeyRevoked implements rosterapi.KeyRevokedListener.
func (k *KeyRevoked) OnKeyRevoked(ctx context.Context, ev rosterapi.KeyRevoked) error {
	n, err := k.store.StopKeyScheduled(ctx, ev.KeyID, "key_revoked", k.clock.Now().UTC())
	if n > 0 {
		k.log.Info("scheduled sends stopped: key revoked", "key_id", ev.KeyID, "count", n)
	}
	return err
}
