package inbound

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"
	"unicode/utf8"

	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/phone"
)

// MaxSimulatedBody is the longest text the simulator accepts (a carrier's
// limit for a concatenated SMS).
const MaxSimulatedBody = 1600

// CarrierNote is the simulated carrier's own view of texts sent to team
// numbers (simulator.Simulator): it sees STOP and START itself, as
// carriers with opt-out handling do.
type CarrierNote interface {
	NoteInbound(ctx context.Context, from, to, body string) error
}

// Pipeliner runs fn's writes in one round trip, committed together
// (*db.DB's Pipeline).
type Pipeliner interface {
	Pipeline(ctx context.Context, fn func(ctx context.Context) error) error
}

// SimulatedText is a text someone sends to a team number through the
// carrier simulator (the admin API's simulator-inbound operation).
type SimulatedText struct {
	From, To, Body string
	// ProviderMessageID is the simulated carrier's id; empty: a new one.
	// Giving one again simulates a carrier retrying its callback.
	ProviderMessageID string
}

// Simulated receives texts through the carrier simulator.
type Simulated struct {
	Carrier CarrierNote
	DB      Pipeliner
	Inbound *Service
	Clock   clock.Clock
}

// Receive checks a simulated text (400 invalid_phone for a number that is
// not a US phone number, 400 invalid_request for a body over
// MaxSimulatedBody characters), lets the simulated carrier see it, and
// stages it as a carrier's callback does: both writes committed together
// or neither. It returns the text as staged.
func (s *Simulated) Receive(ctx context.Context, t SimulatedText) (Args, error) {
	from, err := phone.Parse(t.From)
	if err != nil {
		return Args{}, fault.New(fault.Invalid, fault.CodeInvalidPhone, "from is not a valid US phone number")
	}
	to, err := phone.Parse(t.To)
	if err != nil {
		return Args{}, fault.New(fault.Invalid, fault.CodeInvalidPhone, "to is not a valid US phone number")
	}
	if utf8.RuneCountInString(t.Body) > MaxSimulatedBody {
		return Args{}, fault.Invalidf("body must be at most %d characters", MaxSimulatedBody)
	}
	a := Args{From: from.String(), To: to.String(), Body: t.Body, ProviderMessageID: t.ProviderMessageID,
		ReceivedAt: s.Clock.Now().UTC().Truncate(time.Microsecond)}
	if a.ProviderMessageID == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		a.ProviderMessageID = "SMsim" + hex.EncodeToString(b[:])
	}
	err = s.DB.Pipeline(ctx, func(ctx context.Context) error {
		if err := s.Carrier.NoteInbound(ctx, a.From, a.To, a.Body); err != nil {
			return err
		}
		return s.Inbound.Enqueue(ctx, a)
	})
	if err != nil {
		return Args{}, err
	}
	return a, nil
}
