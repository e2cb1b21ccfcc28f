// Package alphaapi is alpha's contract, with two planted imports that are
// neither the standard library nor a contract.
package alphaapi

import (
	"time"

	"github.com/teamtext/teamtext/modules/beta/betaapi"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/uptrace/bun"
)

// Thing is an alpha thing.
type Thing struct {
	At    time.Time
	Items betaapi.Items
	DB    *db.DB
	Q     *bun.SelectQuery
}
