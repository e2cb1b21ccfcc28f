// Package alphaapi is alpha's contract: it may use the standard library and
// other contracts.
package alphaapi

import (
	"time"

	"github.com/teamtext/teamtext/modules/beta/betaapi"
)

// Thing is an alpha thing.
type Thing struct {
	At    time.Time
	Items betaapi.Items
}
