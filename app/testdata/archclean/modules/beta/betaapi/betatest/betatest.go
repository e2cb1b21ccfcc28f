// Package betatest is a fake of beta's contract: the standard library,
// contracts, other fakes and platform only.
package betatest

import (
	"context"

	"github.com/teamtext/teamtext/modules/alpha/alphaapi"
	"github.com/teamtext/teamtext/modules/beta/betaapi"
	"github.com/teamtext/teamtext/platform/clock"
)

// Items is an in-memory betaapi.Items.
type Items struct {
	Clock  clock.Clock
	Things []alphaapi.Thing
	items  map[string]string
}

var _ betaapi.Items = (*Items)(nil)

// Item implements betaapi.Items.
func (i *Items) Item(_ context.Context, id string) (string, error) { return i.items[id], nil }
