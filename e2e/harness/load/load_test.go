package load

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestSummarise(t *testing.T) {
	var lat []time.Duration
	for i := 100; i >= 1; i-- {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	ms := time.Millisecond
	if s := Summarise(lat); s != (Stats{N: 100, P50: 50 * ms, P90: 90 * ms, P99: 99 * ms, Max: 100 * ms}) {
		t.Errorf("stats %+v", s)
	}
	if got := Percentile([]time.Duration{7}, 99); got != 7 {
		t.Errorf("single value p99 = %v", got)
	}
	if got := Summarise(nil); got.N != 0 {
		t.Errorf("empty stats = %+v", got)
	}
}

func TestDriveCountsAndErrors(t *testing.T) {
	var calls atomic.Int64
	r, err := Drive(context.Background(), 1000, 8, time.Minute,
		func(context.Context) error {
			if calls.Add(1)%100 == 0 {
				return errors.New("boom")
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1000 || r.Requests != 1000 || r.Errors != 10 || r.FirstError != "boom" || r.Truncated {
		t.Fatalf("calls %d, result %+v", calls.Load(), r)
	}
}

func TestDriveTimeBound(t *testing.T) {
	// Calls cut short by the bound are not counted; every call that
	// finished is. (How many finish depends on the machine's load, so the
	// test checks the accounting, not a count.)
	var finished atomic.Int64
	r, err := Drive(context.Background(), 1<<30, 2, 50*time.Millisecond,
		func(ctx context.Context) error {
			select {
			case <-time.After(time.Millisecond):
				finished.Add(1)
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Truncated || r.Errors != 0 || int64(r.Requests) != finished.Load() || r.Stats.N != r.Requests {
		t.Fatalf("finished %d, result %+v", finished.Load(), r)
	}
}

func TestCurve(t *testing.T) {
	start := time.Unix(0, 0)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	// 2 units by 100 ms, none more by 200 ms, 4 by 300 ms, a dip ignored, 6 by 500 ms.
	s := Curve(start, []Point{{at(100), 2}, {at(200), 2}, {at(300), 4}, {at(400), 3}, {at(500), 6}})
	if s.N != 6 || s.P50 != 300*time.Millisecond || s.Max != 500*time.Millisecond {
		t.Fatalf("stats %+v", s)
	}
	if got := Curve(start, nil); got.N != 0 {
		t.Fatalf("empty curve: %+v", got)
	}
}

func TestFollowStopsAtTheTotal(t *testing.T) {
	ctx, start := context.Background(), time.Now()
	counts := []int{2, 5}
	p, err := Follow(ctx, start, time.Millisecond, time.Minute, 5, func() (int, error) { n := counts[0]; counts = counts[1:]; return n, nil })
	if err != nil || p.Done != 5 || p.Stats.N != 5 || p.Elapsed != p.Stats.Max {
		t.Fatalf("done on the second poll: %+v, %v", p, err)
	}
	// Past its timeout with 3 of 5 done: what was done; with none done: an error.
	if p, err := Follow(ctx, start, time.Millisecond, 0, 5, func() (int, error) { return 3, nil }); err != nil || p.Done != 3 {
		t.Fatalf("3 of 5: %+v, %v", p, err)
	}
	if _, err := Follow(ctx, start, time.Millisecond, 0, 5, func() (int, error) { return 0, nil }); err == nil {
		t.Fatal("none done: no error")
	}
}

func TestWaitFor(t *testing.T) {
	calls := 0
	ok, err := WaitFor(context.Background(), time.Millisecond, time.Minute, func() (bool, error) { calls++; return calls == 3, nil })
	if !ok || err != nil || calls != 3 {
		t.Fatalf("done on the third call: %v, %v after %d calls", ok, err, calls)
	}
	ok, err = WaitFor(context.Background(), time.Millisecond, 0, func() (bool, error) { return false, nil })
	if ok || err != nil {
		t.Fatalf("past its timeout: %v, %v; want false without an error", ok, err)
	}
	boom := errors.New("boom")
	if _, err := WaitFor(context.Background(), time.Millisecond, time.Minute, func() (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Fatalf("a failing check: %v", err)
	}
}

func TestParallelStopsAtFirstError(t *testing.T) {
	var ran atomic.Int64
	boom := errors.New("boom")
	err := Parallel(context.Background(), 1000, 4, func(ctx context.Context, i int) error {
		ran.Add(1)
		if i == 10 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || ran.Load() >= 1000 {
		t.Fatalf("err %v after %d calls; want boom, and the calls after it skipped", err, ran.Load())
	}
	ran.Store(0)
	if err := Parallel(context.Background(), 100, 4, func(context.Context, int) error { ran.Add(1); return nil }); err != nil || ran.Load() != 100 {
		t.Fatalf("err %v after %d calls; want every call", err, ran.Load())
	}
}
