package main

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	var lat []time.Duration
	for i := 100; i >= 1; i-- {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	s := computeStats(lat)
	for _, c := range []struct {
		got, want time.Duration
		name      string
	}{
		{s.Min, 1 * time.Millisecond, "min"}, {s.P50, 50 * time.Millisecond, "p50"}, {s.P90, 90 * time.Millisecond, "p90"},
		{s.P99, 99 * time.Millisecond, "p99"}, {s.Max, 100 * time.Millisecond, "max"}, {s.Mean, 50500 * time.Microsecond, "mean"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if got := percentile([]time.Duration{7}, 99); got != 7 {
		t.Errorf("single value p99 = %v", got)
	}
	if got := computeStats(nil); got.N != 0 {
		t.Errorf("empty stats = %+v", got)
	}
}

func TestRunLoadCountsAndErrors(t *testing.T) {
	var calls atomic.Int64
	r, err := runLoad(context.Background(), loadSpec{Requests: 1000, Concurrency: 8, MaxDuration: time.Minute},
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

func TestRunLoadTimeBound(t *testing.T) {
	r, err := runLoad(context.Background(), loadSpec{Requests: 1 << 30, Concurrency: 2, MaxDuration: 50 * time.Millisecond},
		func(ctx context.Context) error {
			select {
			case <-time.After(time.Millisecond):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Truncated || r.Errors != 0 || r.Requests == 0 {
		t.Fatalf("result %+v", r)
	}
}

func TestReplaceSection(t *testing.T) {
	doc := "# B\n\nintro\n\n<!-- bench:x:start -->\nold\n<!-- bench:x:end -->\n\ntail\n"
	sec := "<!-- bench:x:start -->\nnew\n<!-- bench:x:end -->\n"
	got, err := replaceSection(doc, "x", sec)
	if err != nil {
		t.Fatal(err)
	}
	if want := "# B\n\nintro\n\n" + sec + "\ntail\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	got, err = replaceSection("# B\n", "y", "<!-- bench:y:start -->\n<!-- bench:y:end -->\n")
	if err != nil || !strings.HasPrefix(got, "# B\n\n<!-- bench:y:start -->") {
		t.Fatalf("append: %q, %v", got, err)
	}
	if _, err := replaceSection("<!-- bench:x:end -->\n<!-- bench:x:start -->\n", "x", sec); err == nil {
		t.Fatal("reversed markers accepted")
	}
}

func TestSmallestQuota(t *testing.T) {
	for _, c := range []struct {
		in   string
		q, w int
	}{
		{``, 0, 0},
		{`"requests";q=120;w=60`, 120, 60},
		{`"requests";q=120;w=60, "heavy";q=10;w=60`, 10, 60},
		{`"sends-minute";q=20;w=60, "sends-hour";q=200;w=3600`, 20, 60},
	} {
		if q, w := smallestQuota(c.in); q != c.q || w != c.w {
			t.Errorf("smallestQuota(%q) = %d, %d; want %d, %d", c.in, q, w, c.q, c.w)
		}
	}
}
