// Package service is alpha's use cases, with a planted bun import and a
// planted import of alpha's postgres package: alpha's storage is confined
// to internal/postgres, reached only from the module's wiring.
package service

import (
	"github.com/uptrace/bun"

	"github.com/teamtext/teamtext/modules/alpha/internal/postgres"
)

// Q is a planted bun query above postgres.
var Q *bun.SelectQuery

// R is a planted postgres row above postgres.
var R postgres.Row
