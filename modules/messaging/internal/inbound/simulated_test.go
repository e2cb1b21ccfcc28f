package inbound_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
)

type noted struct {
	texts []string
	fail  error
}

func (n *noted) NoteInbound(_ context.Context, from, to, body string) error {
	if n.fail != nil {
		return n.fail
	}
	n.texts = append(n.texts, from+">"+to+":"+body)
	return nil
}

// pipeline runs fn and reports whether it was asked to commit.
type pipeline struct{ runs int }

func (p *pipeline) Pipeline(ctx context.Context, fn func(context.Context) error) error {
	p.runs++
	return fn(ctx)
}

// Receive refuses what a carrier could not deliver before writing
// anything, and otherwise notes the text in the simulated carrier in the
// same pipeline as its staging.
func TestSimulatedReceiveChecksBeforeWriting(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 6, 10, 0, 0, 123456789, time.UTC)
	n, p := &noted{}, &pipeline{}
	s := &inbound.Simulated{Carrier: n, DB: p, Clock: clock.NewFake(at)}
	for _, bad := range []inbound.SimulatedText{
		{From: "12", To: "2025550100", Body: "hi"},
		{From: "2025550101", To: "nope", Body: "hi"},
		{From: "2025550101", To: "2025550100", Body: strings.Repeat("a", inbound.MaxSimulatedBody+1)},
	} {
		_, err := s.Receive(context.Background(), bad)
		f, ok := fault.As(err)
		require.True(t, ok, "%v", err)
		require.Equal(t, fault.Invalid, f.Kind)
	}
	require.Zero(t, p.runs, "nothing written for a refused text")
	require.Empty(t, n.texts)

	n.fail = errors.New("down")
	_, err := s.Receive(context.Background(), inbound.SimulatedText{From: "(202) 555-0101", To: "202-555-0100", Body: "STOP"})
	require.ErrorContains(t, err, "down", "a failed write is the caller's error")
	require.Equal(t, 1, p.runs)
}
