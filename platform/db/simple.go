package db

import (
	"context"
	"database/sql/driver"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// bun formats every query itself: the text carries the values and no bind
// parameters, so almost every text is new. pgx's default mode would prepare
// each one before running it (a second round trip, a server-side parse and
// plan kept in a per-connection cache that churns and deallocates). pgx
// already runs a parameterless Exec with the simple protocol; simpleConn
// does the same for a parameterless Query. Queries with parameters (River's
// fixed texts) keep the statement cache, where it pays.
type simpleConnector struct{ driver.Connector }

func (c simpleConnector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &simpleConn{Conn: cn.(*stdlib.Conn)}, nil
}

// simpleConn is a pgx stdlib connection whose parameterless queries use
// the simple protocol; everything else is the stdlib connection's.
type simpleConn struct{ *stdlib.Conn }

var simpleProtocol = []driver.NamedValue{{Ordinal: 1, Value: pgx.QueryExecModeSimpleProtocol}}

// QueryContext passes pgx's simple-protocol option when there are no arguments.
func (c *simpleConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if len(args) == 0 {
		args = simpleProtocol
	}
	return c.Conn.QueryContext(ctx, query, args)
}
