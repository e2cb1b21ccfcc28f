package dbtest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/teamtext/teamtext/platform/db"
)

// Querier is what the plan helpers send their statement on: a pool, a
// connection or a transaction.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Explain runs an EXPLAIN statement on q (a pool, a connection or a
// transaction) and returns its plan, one line per plan line.
func Explain(t testing.TB, q Querier, explain string, args ...any) string {
	t.Helper()
	rows, err := q.Query(context.Background(), explain, args...)
	if err != nil {
		t.Fatalf("%s: %v", explain, err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("%s: %v", explain, err)
	}
	return strings.Join(lines, "\n")
}

// GenericPlan returns the generic plan of a prepared statement, the plan
// pgx's statement cache runs on once Postgres stops re-planning it: in a
// transaction rolled back after, with settings (e.g. "enable_seqscan =
// off") set locally, prepare ("PREPARE name(types) AS ...") is prepared
// under plan_cache_mode = force_generic_plan and execute ("EXECUTE
// name(...)") explained.
func GenericPlan(t testing.TB, d *db.DB, prepare, execute string, settings ...string) string {
	t.Helper()
	ctx := context.Background()
	tx, err := d.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	for _, s := range append(settings, "plan_cache_mode = force_generic_plan") {
		if _, err := tx.Exec(ctx, "SET LOCAL "+s); err != nil {
			t.Fatalf("SET LOCAL %s: %v", s, err)
		}
	}
	if _, err := tx.Exec(ctx, prepare); err != nil {
		t.Fatalf("%s: %v", prepare, err)
	}
	return Explain(t, tx, "EXPLAIN "+execute)
}

// RowsRead runs EXPLAIN (ANALYZE, FORMAT JSON) of sql with args on q and
// returns the rows each relation's scans returned, summed over their
// loops: the work a statement did, to hold its plan to a bound whatever
// the statistics say. ANALYZE runs the statement, so run a write in a
// transaction that is rolled back.
func RowsRead(t testing.TB, q Querier, sql string, args ...any) map[string]float64 {
	t.Helper()
	var plans []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(Explain(t, q, "EXPLAIN (ANALYZE, FORMAT JSON) "+sql, args...)), &plans); err != nil || len(plans) != 1 {
		t.Fatalf("explain %.60q: %d plans, %v", sql, len(plans), err)
	}
	read := map[string]float64{}
	plans[0].Plan.add(read)
	return read
}

// planNode is a node of EXPLAIN (ANALYZE, FORMAT JSON).
type planNode struct {
	Relation string     `json:"Relation Name"`
	Rows     float64    `json:"Actual Rows"`
	Loops    float64    `json:"Actual Loops"`
	Plans    []planNode `json:"Plans"`
}

func (n planNode) add(read map[string]float64) {
	if n.Relation != "" {
		read[n.Relation] += n.Rows * n.Loops
	}
	for _, c := range n.Plans {
		c.add(read)
	}
}
