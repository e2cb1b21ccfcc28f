package postgres

// The statements the benchmarks (package postgres_test) send raw through
// pgx beside the repository's own path: the texts the service sends, not
// copies of them.
const (
	RecoverSQL   = recoverSQL
	ClaimPumpSQL = claimPumpSQL
	QueuedSQL    = queuedSQL
)

// EventCopyColumns are the events' COPY columns, in row order.
var EventCopyColumns = eventCopyColumns
