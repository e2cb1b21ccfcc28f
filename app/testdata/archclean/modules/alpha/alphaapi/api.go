// Package alphaapi is alpha's contract: it may use the standard library and
// other contracts.
package alphaapi

import (
	"time"

	"github.com/teamtext/teamtext/modules/beta/betaapi"
	"github.com/teamtext/teamtext/platform/phone"
)

// Thing is an alpha thing.
type Thing struct {
	At    time.Time
	Items betaapi.Items
	Phone phone.Number // a shared vocabulary type
}
