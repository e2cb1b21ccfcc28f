package dbtest

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
)

// The modules' storage benchmarks run each statement two ways side by side,
// as sub-benchmarks of one benchmark: "repo", the repository method the
// service calls (bun or the repository's pgx code, its mapping included),
// and "pgx", the same SQL text, built by the same unexported builder, sent
// raw through the pool. The helpers below are their loops.

// Bench runs op b.N times in a row (i counts the calls from 0) with the
// timer reset first, and fails b at op's first error.
func Bench(b *testing.B, op func(ctx context.Context, i int) error) {
	b.Helper()
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		if err := op(ctx, i); err != nil {
			b.Fatalf("op %d: %v", i, err)
		}
	}
}

// BenchParallel runs op b.N times in all on about workers goroutines at
// once (rounded up to a multiple of GOMAXPROCS), like that many clients of
// one pool; i counts the calls from 0 across goroutines.
func BenchParallel(b *testing.B, workers int, op func(ctx context.Context, i int) error) {
	b.Helper()
	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism(max(1, (workers+procs-1)/procs))
	ctx := context.Background()
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := int(next.Add(1) - 1)
			if err := op(ctx, i); err != nil {
				b.Errorf("op %d: %v", i, err)
				return
			}
		}
	})
}

// PerSecond reports units per second of the timed run (rows/s, texts/s)
// beside ns/op, for benchmarks whose op moves many units.
func PerSecond(b *testing.B, unitsPerOp int, unit string) {
	b.Helper()
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(unitsPerOp*b.N)/s, unit+"/s")
	}
}
