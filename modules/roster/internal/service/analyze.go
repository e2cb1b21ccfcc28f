package service

import (
	"context"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// JobInserter inserts River jobs in the caller's transaction (*jobs.Jobs).
type JobInserter interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

// AnalyzeMembersArgs refreshes the planner's statistics of roster_members
// and roster_group_members after a large import (analyzeAfterImport), off
// the request: the ANALYZE took 105 ms of a 10,000-row import's ~900 ms and
// 374 ms of a 100,000-row one (pg_stat_statements). One refresh covers
// every team (it analyzes the tables), so the job names none.
type AnalyzeMembersArgs struct {
	// After is the refresh that was already running when an import
	// finished (0 for none): that one may have sampled the tables before
	// the import's rows were committed, so the import queues a refresh to
	// follow it (queueAnalyze). Imports finishing during the same run
	// share that follower.
	After int64 `json:"after,omitempty"`
}

// Kind names the job.
func (AnalyzeMembersArgs) Kind() string { return "roster.analyze_members" }

// analyzeStates are the states in which a queued refresh absorbs a new
// one: those in which it has not started yet (retryable: its next attempt
// starts later), so it will sample the tables after the inserting import's
// rows were committed. Completed is left out, so a finished refresh does
// not stop the next import's. River requires available, pending, running
// and scheduled in any ByState ("The following states must be included in
// ByState if set": river.UniqueOpts.ByState, River v0.51.2 insert_opts.go
// as in v0.41.0,
// https://pkg.go.dev/github.com/riverqueue/river@v0.51.2#UniqueOpts), so a
// running refresh absorbs an insert too; queueAnalyze makes up for it with
// a follower (After).
func analyzeStates() []rivertype.JobState {
	return []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable, rivertype.JobStateRunning,
		rivertype.JobStateScheduled,
	}
}

// analyzeAttempts bounds a failing refresh: River retries after about 1 s
// and 16 s, then gives up; by then autovacuum's own ANALYZE (its naptime
// is a minute) is due for a table that grew this much.
const analyzeAttempts = 3

// InsertOpts makes a burst of imports queue one refresh: while a refresh
// is queued and not started, inserting another one returns it instead
// (ByArgs: a follower of a running refresh is a refresh of its own).
func (AnalyzeMembersArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: analyzeAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: analyzeStates()}}
}

// AnalyzeMembers is the refresh's job: ANALYZE of the members and their
// group memberships. A failure is returned for River to retry (its attempt
// logs a WARN with this error); the imports' rows stay committed either way.
func (s *Service) AnalyzeMembers(ctx context.Context, _ AnalyzeMembersArgs) error {
	if err := s.st.Imports.AnalyzeMembers(ctx); err != nil {
		return fmt.Errorf("roster statistics not refreshed (members pages may be slow until autovacuum analyzes the tables): %w", err)
	}
	return nil
}

// queueAnalyze queues a statistics refresh after an import's rows were
// committed. It is a transaction of its own, after the chunks' commits,
// not one of them, unlike the project's other jobs (inserted with the
// writes they follow from): the refresh has no data of its own, and losing
// it to a crash between the last commit and this insert costs only stale
// statistics until autovacuum's own ANALYZE, as a failed ANALYZE did.
//
// When the refresh the insert ran into is already running, it may have
// sampled the tables before this import's rows were committed (ANALYZE
// sees the blocks the table had when it started), so a follower is queued
// to run after it; River cannot leave running out of the unique states
// (analyzeStates). Should that follower be running too, the same goes for
// it: each step names a later job (a follower is inserted after the job it
// follows), so the walk ends at a refresh that has not started.
func (s *Service) queueAnalyze(ctx context.Context) error {
	return s.db.Tx(ctx, func(ctx context.Context) error {
		args := AnalyzeMembersArgs{}
		for {
			res, err := s.jobs.Insert(ctx, args, nil)
			if err != nil {
				return err
			}
			if !res.UniqueSkippedAsDuplicate || res.Job.State != rivertype.JobStateRunning {
				return nil
			}
			args = AnalyzeMembersArgs{After: res.Job.ID}
		}
	})
}
