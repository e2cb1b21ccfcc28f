// Package ratelimit enforces the spec's limits exactly across nodes: "N per
// window" means at most N admitted in ANY rolling window, the state lives in
// Postgres, and each check is one statement (one round trip).
//
// Why not a token bucket or GCRA: with burst N they admit up to 2N inside
// one window (a full bucket, then its refill), which the spec's wording
// forbids. "At most N in any rolling window" holds if and only if the N-th
// most recent admitted hit is older than the window, so a bucket keeps a
// fixed ring of its last M admitted timestamps (M = the policy's largest
// limit) and a counter: a check reads one ring element per rule and writes
// one, whatever M is. Each bucket is one row; INSERT ... ON CONFLICT DO
// UPDATE locks that row, so concurrent checks from any number of nodes
// serialise on it and the decision and the write happen atomically. (The
// ring replaced a sliding log whose check counted every logged hit; the
// log survives as the property test's oracle.)
package ratelimit

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/teamtext/teamtext/platform/clock"
)

// Rule is one "Limit per Window" constraint.
type Rule struct {
	Name   string // policy name in the RateLimit headers, e.g. "sends-minute"
	Limit  int
	Window time.Duration
}

// Policy is a set of rules checked together on one bucket: a hit is
// admitted only if every rule admits it (e.g. 20/min and 200/hour).
type Policy []Rule

func (p Policy) maxWindow() time.Duration {
	var w time.Duration
	for _, r := range p {
		w = max(w, r.Window)
	}
	return w
}

// RuleState is one rule's standing after a check.
type RuleState struct {
	Rule
	Remaining int
	Reset     time.Duration // until the oldest counted hit leaves the window
}

// Decision is the outcome of a check.
type Decision struct {
	Allowed    bool
	RetryAfter time.Duration // when refused: until a hit would be admitted
	Rules      []RuleState
}

// Limiter checks buckets against policies.
type Limiter struct {
	pool  *pgxpool.Pool
	clock clock.Clock
	allow string // Allow's statement, built once
}

// New returns a limiter over pool. With a test clock, windows follow it.
func New(pool *pgxpool.Pool, clk clock.Clock) *Limiter {
	return &Limiter{pool: pool, clock: clk, allow: allowSQL()}
}

// checkCTEs: admit iff, for every rule, the lim-th most recent admitted hit
// is at or before now - window. The ring (hits) has M slots (the ring
// parameter); pos counts admissions, so hits[((pos - k) % M) + 1] is the
// k-th most recent hit and hits[(pos % M) + 1] the next slot to write. A row
// whose ring does not have M slots (a sliding-log row, or a policy whose
// largest limit changed) is first rebuilt from its latest M hits. A written
// timestamp is never earlier than the previous one (greatest), so the ring
// stays ordered even when a node's now was taken before it waited for the
// row lock; that only errs towards refusing. A NULL now means "the
// database's clock", so that nodes with the real clock agree on time.
//
// {src} is a relation with a bucket column (one row per bucket to check:
// none checks nothing); {now}, {limits}, {windows} and {ring} are the
// statement's parameters for them.
const checkCTEs = `rl_now AS (SELECT coalesce({now}::timestamptz, clock_timestamp()) AS now),
rl AS (
INSERT INTO platform_rate_limits AS r (bucket, hits, pos, admitted)
SELECT b.bucket, array_fill(NULL::timestamptz, ARRAY[{ring}::int - 1]) || rl_now.now, {ring}::int, true FROM {src} b, rl_now
ON CONFLICT (bucket) DO UPDATE SET (hits, pos, admitted) = (
    SELECT CASE WHEN c.ok THEN n.ring[:n.at - 1] || greatest((SELECT now FROM rl_now), n.ring[n.last]) || n.ring[n.at + 1:]
                ELSE n.ring END,
           n.pos + c.ok::int,
           c.ok
    FROM (SELECT CASE WHEN r.pos IS NULL OR cardinality(r.hits) <> {ring}::int THEN ARRAY(
                     SELECT x.h FROM generate_series(1, {ring}::int) g
                     LEFT JOIN (SELECT h, row_number() OVER (ORDER BY h DESC) AS rn FROM unnest(r.hits) h WHERE h IS NOT NULL) x
                       ON x.rn = {ring}::int - g + 1
                     ORDER BY g)
                 ELSE r.hits END AS ring,
                 CASE WHEN r.pos IS NULL OR cardinality(r.hits) <> {ring}::int THEN {ring}::int ELSE r.pos END AS pos) n0,
         LATERAL (SELECT n0.ring, n0.pos, (n0.pos % {ring}::int)::int + 1 AS at, ((n0.pos - 1) % {ring}::int)::int + 1 AS last) n,
         LATERAL (SELECT NOT EXISTS (
                     SELECT 1 FROM unnest({limits}::int[], {windows}::bigint[]) AS rule(lim, win_us)
                     WHERE n.ring[((n.pos - rule.lim) % {ring}::int)::int + 1] > (SELECT now FROM rl_now) - rule.win_us * interval '1 microsecond') AS ok) c)
RETURNING r.bucket, r.admitted, r.hits, (SELECT now FROM rl_now) AS now)`

// CheckCTEs returns the limiter's check as two common table expressions,
// rl_now and rl, for a caller's WITH clause: a statement that reads what
// decides whether a request may count (an API key with its team, say) can
// then check its limit too, in the same round trip. src names a relation
// of the statement with a bucket column, the buckets to check (one hit
// each, one policy for all); first is the number of the first of the four
// parameters that Check.Args fills. rl yields bucket, admitted, hits and
// now for each bucket checked: scan them with Check.Decision.
func CheckCTEs(src string, first int) string {
	return strings.NewReplacer("{src}", src,
		"{now}", "$"+strconv.Itoa(first), "{limits}", "$"+strconv.Itoa(first+1),
		"{windows}", "$"+strconv.Itoa(first+2), "{ring}", "$"+strconv.Itoa(first+3)).Replace(checkCTEs)
}

// allowSQL is Allow's statement: the bucket is $1.
func allowSQL() string {
	return "WITH rl_src AS (SELECT $1::text AS bucket),\n" + CheckCTEs("rl_src", 2) + "\nSELECT admitted, hits, now FROM rl"
}

// Check is one policy's check, ready to be sent: the parameters of
// CheckCTEs and the reading of its answer.
type Check struct {
	policy  Policy
	now     *time.Time
	limits  []int32
	windows []int64
	ring    int32
}

// Check prepares a check of policy at the limiter's clock.
func (l *Limiter) Check(policy Policy) (Check, error) {
	c := Check{policy: policy, now: l.clock.NowOrNil(), limits: make([]int32, len(policy)), windows: make([]int64, len(policy))}
	for i, r := range policy {
		if r.Limit < 1 || r.Window <= 0 {
			return Check{}, fmt.Errorf("ratelimit: invalid rule %+v", r)
		}
		c.limits[i], c.windows[i] = int32(r.Limit), r.Window.Microseconds()
		c.ring = max(c.ring, int32(r.Limit))
	}
	return c, nil
}

// Args are the four parameters of CheckCTEs, in order.
func (c Check) Args() []any { return []any{c.now, c.limits, c.windows, c.ring} }

// Decision reads rl's admitted, hits and now for one bucket.
func (c Check) Decision(admitted bool, slots []pgtype.Timestamptz, now time.Time) Decision {
	hits := make([]time.Time, 0, len(slots))
	for _, s := range slots {
		if s.Valid {
			hits = append(hits, s.Time)
		}
	}
	return decide(c.policy, admitted, hits, now)
}

// Allow records a hit on bucket if policy admits it.
func (l *Limiter) Allow(ctx context.Context, bucket string, policy Policy) (Decision, error) {
	c, err := l.Check(policy)
	if err != nil {
		return Decision{}, err
	}
	var (
		admitted bool
		slots    []pgtype.Timestamptz
		now      time.Time
	)
	err = l.pool.QueryRow(ctx, l.allow, append([]any{bucket}, c.Args()...)...).Scan(&admitted, &slots, &now)
	if err != nil {
		return Decision{}, fmt.Errorf("ratelimit %s: %w", bucket, err)
	}
	return c.Decision(admitted, slots, now), nil
}

// decide derives remaining counts, resets and Retry-After from the log.
func decide(policy Policy, admitted bool, hits []time.Time, now time.Time) Decision {
	sort.Slice(hits, func(i, j int) bool { return hits[i].Before(hits[j]) })
	d := Decision{Allowed: admitted}
	for _, r := range policy {
		var in []time.Time
		for _, h := range hits {
			if h.After(now.Add(-r.Window)) {
				in = append(in, h)
			}
		}
		st := RuleState{Rule: r, Remaining: max(0, r.Limit-len(in))}
		if len(in) > 0 {
			st.Reset = in[0].Add(r.Window).Sub(now)
		}
		if len(in) >= r.Limit {
			// A hit is admitted once enough old ones leave: the (n-limit+1)th oldest.
			wait := in[len(in)-r.Limit].Add(r.Window).Sub(now)
			d.RetryAfter = max(d.RetryAfter, wait)
		}
		d.Rules = append(d.Rules, st)
	}
	if d.Allowed {
		d.RetryAfter = 0
	}
	return d
}

// Headers renders the IETF draft (draft-ietf-httpapi-ratelimit-headers)
// fields: RateLimit-Policy lists each rule's quota and window, RateLimit
// each rule's remaining quota and seconds until it resets.
func (d Decision) Headers() (policy, state string) {
	var ps, ss []string
	for _, r := range d.Rules {
		ps = append(ps, fmt.Sprintf(`"%s";q=%d;w=%d`, r.Name, r.Limit, int(r.Window.Seconds())))
		ss = append(ss, fmt.Sprintf(`"%s";r=%d;t=%d`, r.Name, r.Remaining, ceilSeconds(r.Reset)))
	}
	return strings.Join(ps, ", "), strings.Join(ss, ", ")
}

// RetryAfterSeconds is the Retry-After value (whole seconds, at least 1).
func (d Decision) RetryAfterSeconds() string {
	return strconv.Itoa(max(1, ceilSeconds(d.RetryAfter)))
}

func ceilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + time.Second - 1) / time.Second)
}

// Sweep deletes buckets with no hit inside the largest window in use
// (olderThan), so idle keys and one-off client addresses do not pile up.
func (l *Limiter) Sweep(ctx context.Context, olderThan time.Duration) (int64, error) {
	tag, err := l.pool.Exec(ctx, `DELETE FROM platform_rate_limits
WHERE coalesce((SELECT max(h) FROM unnest(hits) h), '-infinity') < coalesce($1::timestamptz, clock_timestamp()) - $2::bigint * interval '1 microsecond'`,
		l.clock.NowOrNil(), olderThan.Microseconds())
	if err != nil {
		return 0, fmt.Errorf("sweep rate limits: %w", err)
	}
	return tag.RowsAffected(), nil
}
