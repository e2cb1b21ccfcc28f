// Package postgres is alpha's store, with planted reads of beta's tables.
package postgres

type row struct {
	ID     string `bun:"table:alpha_things"`
	BetaID string `bun:"beta_id"`
}

type stolen struct {
	ID string `bun:"table:betas"`
}

const q = `SELECT t.id FROM alpha_things t JOIN beta_items b ON b.id = t.beta_id`

// beta_secret is no table beta creates, but it carries beta's prefix where
// SQL names a table.
const q2 = `DELETE FROM beta_secret WHERE id = $1`

const msg = "copies the betas' items"
