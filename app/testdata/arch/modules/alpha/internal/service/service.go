// Package service is alpha's use cases, with a planted bun import: alpha's
// storage is confined to internal/postgres.
package service

import "github.com/uptrace/bun"

// Q is a planted bun query above postgres.
var Q *bun.SelectQuery
