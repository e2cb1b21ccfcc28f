package postgres

// padded returns the length a batch statement's argument arrays are
// padded to (with NULLs, which match no row): at least batchMinRows. The
// planner estimates an array argument at 10 elements in the plan it caches
// for a prepared statement, and at its real length in a plan made for the
// arguments at hand; with fewer than 10 the latter always looks cheaper, so
// Postgres would plan every run afresh. From 10 up, it keeps the cached plan.
func padded(n int) int { return max(n, batchMinRows) }

const batchMinRows = 10
