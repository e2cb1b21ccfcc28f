package dbtest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Querier is what RowsRead sends its statement on: a pool, a connection
// or a transaction.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// RowsRead runs EXPLAIN (ANALYZE, FORMAT JSON) of sql with args on q and
// returns the rows each relation's scans returned, summed over their
// loops: the work a statement did, to hold its plan to a bound whatever
// the statistics say. ANALYZE runs the statement, so run a write in a
// transaction that is rolled back.
func RowsRead(ctx context.Context, q Querier, sql string, args ...any) (map[string]float64, error) {
	var raw []byte
	if err := q.QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) "+sql, args...).Scan(&raw); err != nil {
		return nil, fmt.Errorf("explain: %w", err)
	}
	var plans []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal(raw, &plans); err != nil || len(plans) != 1 {
		return nil, fmt.Errorf("explain: %d plans, %v", len(plans), err)
	}
	read := map[string]float64{}
	plans[0].Plan.add(read)
	return read, nil
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
