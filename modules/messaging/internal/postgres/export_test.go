package postgres

// The statements the benchmarks (package postgres_test) send raw through
// pgx beside the repository's own path: the texts the service sends, not
// copies of them.
const (
	StageInboundSQL    = stageInboundSQL
	LockInboundLaneSQL = lockInboundLaneSQL
	TakeInboundSQL     = takeInboundSQL
	TakeStatusesSQL    = takeStatusesSQL
	InsertInboundsSQL  = insertInboundsSQL
	CountReceivedSQL   = countReceivedSQL
)

// ShardOf is the analytics counter shard of a fact id.
var ShardOf = shardOf
