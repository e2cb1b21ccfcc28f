package postgres

import "github.com/uptrace/bun"

// base is bun where it belongs: in alpha's postgres package.
type base struct {
	bun.BaseModel `bun:"table:alpha_other"`
}
