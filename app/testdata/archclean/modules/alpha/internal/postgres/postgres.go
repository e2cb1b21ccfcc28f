// Package postgres is alpha's store: its own tables only. Prose and column
// names that mention beta (beta_id, "the betas") are not table names.
package postgres

type thing struct {
	ID     string `bun:"table:alpha_things"`
	BetaID string `bun:"beta_id"`
}

const q = `SELECT id, beta_id FROM alpha_things JOIN alpha_other USING (id)`

const msg = "copies the betas' items"
