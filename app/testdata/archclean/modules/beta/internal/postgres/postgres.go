// Package postgres is beta's store.
package postgres

const q = `UPDATE beta_items SET alpha_id = $1 WHERE id IN (SELECT id FROM betas)`
