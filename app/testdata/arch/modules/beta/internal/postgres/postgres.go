// Package postgres is beta's store, with a planted write to alpha's table.
package postgres

const q = `UPDATE beta_items SET alpha_id = $1 WHERE id IN (SELECT id FROM alpha_things)`
