// Package alphatest is a fake of alpha's contract, with two planted
// imports a fake may not have: a test library, and the module behind the
// contract.
package alphatest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/alpha/alphaapi"
	"github.com/teamtext/teamtext/modules/alpha/internal/domain"
	"github.com/teamtext/teamtext/platform/clock"
)

// Things is an in-memory alphaapi.Thing store.
type Things struct {
	Clock clock.Clock
	All   []alphaapi.Thing
	OK    int
}

// ok is the domain's status, read behind the contract's back.
var ok = domain.Status

// Exercise is alpha's contract suite.
func Exercise(t *testing.T, things *Things) { require.NotNil(t, things) }
