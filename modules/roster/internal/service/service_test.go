package service_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/billing/billingapi/billingtest"
	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/modules/roster/internal/worker"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/metrics"
)

var srv *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &srv)) }

// storesOf are the service's stores, all kept by r as the module wires them.
func storesOf(r *postgres.Repo) service.Stores {
	return service.Stores{Teams: r, Members: r, Groups: r, Fields: r, Imports: r, OptOuts: r, Consent: r, Joins: r,
		Directory: directoryOf(r)}
}

// directoryOf are the directory's stores, all kept by r.
func directoryOf(r *postgres.Repo) service.DirectoryStores {
	return service.DirectoryStores{Teams: r, Members: r, Groups: r, Outcomes: r}
}

const teamA, teamB = "team_a", "team_b"

var t0 = time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)

// recorder keeps what the service published and what its listeners heard.
type recorder struct {
	mu       sync.Mutex
	events   []events.Event
	revoked  []rosterapi.KeyRevoked
	inactive []rosterapi.OwnerInactive
}

// keep appends v to *list under mu: what a fake was handed, kept for the
// test to read.
func keep[T any](mu *sync.Mutex, list *[]T, v T) error {
	mu.Lock()
	defer mu.Unlock()
	*list = append(*list, v)
	return nil
}

func (r *recorder) Publish(_ context.Context, ev events.Event) error {
	return keep(&r.mu, &r.events, ev)
}

func (r *recorder) OnKeyRevoked(_ context.Context, ev rosterapi.KeyRevoked) error {
	return keep(&r.mu, &r.revoked, ev)
}

func (r *recorder) OnOwnerInactive(_ context.Context, ev rosterapi.OwnerInactive) error {
	return keep(&r.mu, &r.inactive, ev)
}

// types lists the published events' types, in order.
func (r *recorder) types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []string{}
	for _, ev := range r.events {
		out = append(out, ev.Type)
	}
	return out
}

type bundle struct {
	svc  *service.Service
	repo *postgres.Repo
	d    *db.DB
	rec  *recorder
	jobs *jobs.Jobs
}

// setup is a roster on its own database with two teams and a group "grp_a1"
// of team A.
func setup(t *testing.T) (context.Context, *bundle) {
	t.Helper()
	ctx := context.Background()
	d := srv.Migrated(t, db.PlatformMigrations(), postgres.Migrations()) // the platform's: the sign-in's limiter
	repo := postgres.NewRepo(d)
	rec := &recorder{}
	log := slog.New(slog.DiscardHandler)
	clk := clock.NewFake(t0)
	j, err := jobs.New(d, clk, log, jobs.Options{})
	require.NoError(t, err)
	svc := service.New(d, storesOf(repo), billingtest.New(clk), rec, j, clk, log,
		[]rosterapi.KeyRevokedListener{rec}, []rosterapi.OwnerInactiveListener{rec})
	_, err = jobs.NewRunner(j, []jobs.Registration{worker.Registration(svc)}, metrics.New(), jobs.Options{})
	require.NoError(t, err)
	for _, id := range []string{teamA, teamB} {
		require.NoError(t, repo.InsertTeam(ctx, &domain.Team{ID: id, Name: id, Code: "code-" + id[5:], TimeZone: "America/New_York", CreatedAt: t0}))
	}
	require.NoError(t, repo.InsertGroup(ctx, &domain.Group{ID: "grp_a1", TeamID: teamA, Name: "Varsity", CreatedAt: t0}))
	require.NoError(t, repo.InsertGroup(ctx, &domain.Group{ID: "grp_a2", TeamID: teamA, Name: "JV", CreatedAt: t0}))
	return ctx, &bundle{svc: svc, repo: repo, d: d, rec: rec, jobs: j}
}

// requireFault asserts err is a fault with kind and code.
func requireFault(t *testing.T, err error, kind fault.Kind, code string) *fault.Error {
	t.Helper()
	f, ok := fault.As(err)
	require.True(t, ok, "a fault: %v", err)
	require.Equal(t, kind, f.Kind, "%v", err)
	require.Equal(t, code, f.Code, "%v", err)
	return f
}

// members counts a team's rows in roster_members.
func (b *bundle) members(t *testing.T, teamID string) int {
	t.Helper()
	var n int
	require.NoError(t, b.d.Pool.QueryRow(context.Background(), `SELECT count(*) FROM roster_members WHERE team_id = $1`, teamID).Scan(&n))
	return n
}

func TestAddMemberFromAPI(t *testing.T) {
	t.Parallel()
	ctx, b := setup(t)

	v, err := b.svc.AddMember(ctx, teamA, service.NewMember{Name: "Ann Lee", Phone: "(202) 555-0101", Role: "guardian",
		Status: domain.StatusPending, DashboardLogin: true, GroupIDs: []string{"grp_a2", "grp_a1", "grp_a2"}}, service.FromAPI())
	require.NoError(t, err)
	require.Equal(t, "+12025550101", v.Phone)
	require.Equal(t, domain.StatusActive, v.Status, "the API cannot add a pending member")
	require.False(t, v.DashboardLogin, "nor give a login")
	require.False(t, v.CanSendBroadcasts)
	require.Equal(t, []string{"grp_a1", "grp_a2"}, v.GroupIDs, "each group once, sorted")
	require.Equal(t, []string{events.MemberJoined}, b.rec.types())
	require.Equal(t, domain.ConsentAPI, *v.ConsentSource)
	hist, err := b.repo.ConsentHistory(ctx, teamA, v.Phone, -1, 0)
	require.NoError(t, err)
	require.Len(t, hist, 1)
	require.Equal(t, domain.ChannelAPI, hist[0].Channel)
	require.Equal(t, v.ID, *hist[0].MemberID)

	_, err = b.svc.AddMember(ctx, teamA, service.NewMember{Name: "Coach", Phone: "2025550102", Role: "head_coach"}, service.FromAPI())
	requireFault(t, err, fault.Invalid, domain.CodeRoleNotAllowed)
	_, err = b.svc.AddMember(ctx, teamA, service.NewMember{Name: "Bo", Phone: "2025550103", GroupIDs: []string{"grp_a1", "grp_nope"}}, service.FromAPI())
	requireFault(t, err, fault.Invalid, domain.CodeInvalidGroup)
	require.Equal(t, 1, b.members(t, teamA), "nothing written by the refused adds")
}

func TestAddMemberFromDashboard(t *testing.T) {
	t.Parallel()
	ctx, b := setup(t)

	v, err := b.svc.AddMember(ctx, teamA, service.NewMember{Name: "Coach Kim", Phone: "2025550101", Role: "head_coach",
		Status: domain.StatusPending, DashboardLogin: true}, service.FromDashboard())
	require.NoError(t, err)
	require.Equal(t, domain.StatusPending, v.Status)
	require.True(t, v.DashboardLogin)
	require.True(t, v.CanSendBroadcasts, "staff may broadcast unless told otherwise")
	require.Equal(t, []string{}, v.GroupIDs)
	require.Empty(t, b.rec.types(), "a pending member has not joined")
	require.Equal(t, domain.ConsentDashboard, *v.ConsentSource)
	hist, err := b.repo.ConsentHistory(ctx, teamA, v.Phone, -1, 0)
	require.NoError(t, err)
	require.Len(t, hist, 1)
	require.Equal(t, domain.ChannelAdmin, hist[0].Channel)

	_, err = b.svc.AddMember(ctx, "team_none", service.NewMember{Name: "Ann", Phone: "2025550102"}, service.FromDashboard())
	f := requireFault(t, err, fault.NotFound, fault.CodeNotFound)
	require.Equal(t, "team not found", f.Message)
}

func TestAddMemberRules(t *testing.T) {
	t.Parallel()
	ctx, b := setup(t)
	first, err := b.svc.AddMember(ctx, teamA, service.NewMember{Name: "Ann Lee", Phone: "2025550101"}, service.FromAPI())
	require.NoError(t, err)

	_, err = b.svc.AddMember(ctx, teamA, service.NewMember{Name: "  ann   LEE ", Phone: "202-555-0101"}, service.FromAPI())
	f := requireFault(t, err, fault.Conflict, domain.CodeMemberExists)
	require.Equal(t, first.ID, f.Fields["existing_member_id"])

	_, err = b.svc.AddMember(ctx, teamA, service.NewMember{Name: "Ben Lee", Phone: "2025550101"}, service.FromAPI())
	require.NoError(t, err, "the same number with another name is another entry (a parent of two athletes)")
	_, err = b.svc.AddMember(ctx, teamB, service.NewMember{Name: "Ann Lee", Phone: "2025550101"}, service.FromAPI())
	require.NoError(t, err, "another team's roster is its own")

	_, err = b.svc.AddMember(ctx, teamA, service.NewMember{Name: "Coach", Phone: "2025550105", Role: "coach"}, service.FromDashboard())
	require.NoError(t, err)
	_, err = b.svc.AddMember(ctx, teamA, service.NewMember{Name: "coach", Phone: "2025550105"}, service.FromAPI())
	requireFault(t, err, fault.Forbidden, domain.CodeStaffMemberProtected)

	_, err = b.svc.RecordOptOut(ctx, teamA, "2025550109", "", service.SourceAPI)
	require.NoError(t, err)
	_, err = b.svc.AddMember(ctx, teamA, service.NewMember{Name: "Cy", Phone: "2025550109"}, service.FromDashboard())
	requireFault(t, err, fault.Conflict, domain.CodeOptedOut)
	require.Equal(t, 3, b.members(t, teamA))
}

func TestRecordOptOut(t *testing.T) {
	t.Parallel()
	ctx, b := setup(t)
	ann, err := b.svc.AddMember(ctx, teamA, service.NewMember{Name: "Ann", Phone: "2025550101"}, service.FromAPI())
	require.NoError(t, err)
	_, err = b.svc.AddMember(ctx, teamA, service.NewMember{Name: "Coach", Phone: "2025550105", Role: "coach"}, service.FromDashboard())
	require.NoError(t, err)
	other, err := b.svc.AddMember(ctx, teamB, service.NewMember{Name: "Bo", Phone: "2025550102"}, service.FromAPI())
	require.NoError(t, err)

	for _, tc := range []struct{ phone, memberID string }{{"", ""}, {"2025550101", ann.ID}} {
		_, err := b.svc.RecordOptOut(ctx, teamA, tc.phone, tc.memberID, service.SourceAPI)
		f := requireFault(t, err, fault.Invalid, fault.CodeInvalidRequest)
		require.Equal(t, "send exactly one of phone and member_id", f.Message)
	}
	_, err = b.svc.RecordOptOut(ctx, teamA, "", other.ID, service.SourceSupport)
	requireFault(t, err, fault.NotFound, fault.CodeNotFound)
	_, err = b.svc.RecordOptOut(ctx, teamA, "2025550105", "", service.SourceSupport)
	requireFault(t, err, fault.Forbidden, domain.CodeStaffMemberProtected)
	opted, err := b.svc.IsOptedOut(ctx, teamA, "+12025550101")
	require.NoError(t, err)
	require.False(t, opted, "nothing recorded by the refused opt-outs")

	r, err := b.svc.RecordOptOut(ctx, teamA, "", ann.ID, service.SourceSupport)
	require.NoError(t, err)
	require.Equal(t, "+12025550101", r.Phone)
	require.Equal(t, []string{ann.ID}, r.MemberIDs)
	require.Equal(t, service.SourceSupport, r.Source)
	require.True(t, r.New)
	got, err := b.svc.GetMember(ctx, teamA, ann.ID)
	require.NoError(t, err)
	require.Equal(t, domain.StatusOptedOut, got.Status)

	again, err := b.svc.RecordOptOut(ctx, teamA, "+1 202 555 0101", "", service.SourceAPI)
	require.NoError(t, err)
	require.False(t, again.New)
	require.Equal(t, service.SourceSupport, again.Source, "the existing record answers")
}

func TestMemberChanges(t *testing.T) {
	t.Parallel()
	ctx, b := setup(t)
	pending, err := b.svc.AddMember(ctx, teamA, service.NewMember{Name: "Pat", Phone: "2025550101", Status: domain.StatusPending}, service.FromDashboard())
	require.NoError(t, err)

	m, err := b.svc.ApproveMember(ctx, teamA, pending.ID)
	require.NoError(t, err)
	require.Equal(t, domain.StatusActive, m.Status)
	require.Equal(t, []string{events.MemberJoined}, b.rec.types())
	_, err = b.svc.ApproveMember(ctx, teamA, pending.ID)
	requireFault(t, err, fault.Conflict, fault.CodeConflict)
	_, err = b.svc.ApproveMember(ctx, teamB, pending.ID)
	requireFault(t, err, fault.NotFound, fault.CodeNotFound)

	_, err = b.svc.RecordOptOut(ctx, teamA, "", pending.ID, service.SourceAPI)
	require.NoError(t, err)
	phone := "2025550199"
	_, err = b.svc.ChangeMember(ctx, teamA, pending.ID, service.MemberChange{Phone: &phone})
	requireFault(t, err, fault.Conflict, domain.CodeOptedOutMember)
	got, err := b.svc.GetMember(ctx, teamA, pending.ID)
	require.NoError(t, err)
	require.Equal(t, "+12025550101", got.Phone, "unchanged")

	coach, err := b.svc.AddMember(ctx, teamA, service.NewMember{Name: "Coach", Phone: "2025550105", Role: "head_coach"}, service.FromDashboard())
	require.NoError(t, err)
	name := "Renamed"
	_, err = b.svc.ChangeMember(ctx, teamA, coach.ID, service.MemberChange{Name: &name})
	requireFault(t, err, fault.Forbidden, domain.CodeStaffMemberProtected)
	requireFault(t, b.svc.RemoveMember(ctx, teamA, coach.ID), fault.Forbidden, domain.CodeStaffMemberProtected)

	key, err := b.svc.CreateKey(ctx, teamA, coach.ID, "Integration")
	require.NoError(t, err)
	role := "coach"
	demoted, err := b.svc.PatchMember(ctx, teamA, coach.ID, service.MemberPatch{Role: &role})
	require.NoError(t, err)
	require.Equal(t, rosterapi.RoleCoach, demoted.Role)
	require.Equal(t, []rosterapi.KeyRevoked{{TeamID: teamA, KeyID: key.Key.ID, MemberID: coach.ID, Reason: "creator_role_changed"}}, b.rec.revoked)
	require.Equal(t, []rosterapi.OwnerInactive{{TeamID: teamA, MemberID: coach.ID, Reason: "creator_role_changed"}}, b.rec.inactive)
	bad := "captain"
	_, err = b.svc.PatchMember(ctx, teamA, coach.ID, service.MemberPatch{Role: &bad})
	requireFault(t, err, fault.Invalid, domain.CodeInvalidRole)

	// An opted-out member is kept on record when removed; others are deleted.
	require.NoError(t, b.svc.RemoveMember(ctx, teamA, pending.ID))
	_, err = b.svc.GetMember(ctx, teamA, pending.ID)
	requireFault(t, err, fault.NotFound, fault.CodeNotFound)
	onRecord, err := b.repo.MembersOnRecordByPhone(ctx, teamA, "+12025550101")
	require.NoError(t, err)
	require.Len(t, onRecord, 1)
	require.NotNil(t, onRecord[0].DeletedAt)
}

// TestGroupNames: a team's group names are unique (the store's unique
// index, as domain.ErrGroupNameTaken), other teams' are not in the way,
// and an unknown group (domain.ErrNotFound) is 404.
func TestGroupNames(t *testing.T) {
	t.Parallel()
	ctx, b := setup(t)

	_, err := b.svc.CreateGroup(ctx, teamA, " Varsity ")
	f := requireFault(t, err, fault.Conflict, fault.CodeConflict)
	require.Equal(t, "a group with this name exists", f.Message)
	g, err := b.svc.CreateGroup(ctx, teamB, "Varsity")
	require.NoError(t, err, "another team's group of that name")
	require.Equal(t, "Varsity", g.Name)

	_, err = b.svc.RenameGroup(ctx, teamA, "grp_a2", "Varsity")
	requireFault(t, err, fault.Conflict, fault.CodeConflict)
	g, err = b.svc.RenameGroup(ctx, teamA, "grp_a2", "Freshmen")
	require.NoError(t, err)
	require.Equal(t, "Freshmen", g.Name)
	_, err = b.svc.RenameGroup(ctx, teamB, "grp_a2", "Mine")
	requireFault(t, err, fault.NotFound, fault.CodeNotFound)
}

// importPlayers imports n new members to team A, phones from +1202555<first>.
func (b *bundle) importPlayers(t *testing.T, first, n int) {
	t.Helper()
	var csv strings.Builder
	csv.WriteString("name,phone\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&csv, "Player %d,+1202555%04d\n", first+i, first+i)
	}
	res, err := b.svc.ImportMembers(context.Background(), teamA, []byte(csv.String()), 0)
	require.NoError(t, err)
	require.Equal(t, n, res.Created, "%+v", res.Rows[0])
}

// noAutoAnalyze keeps autovacuum off the roster's tables, so that only the
// refresh job analyzes them while a test looks.
func (b *bundle) noAutoAnalyze(t *testing.T) {
	t.Helper()
	_, err := b.d.Pool.Exec(context.Background(), `ALTER TABLE roster_members SET (autovacuum_enabled = false);
ALTER TABLE roster_group_members SET (autovacuum_enabled = false)`)
	require.NoError(t, err)
}

// reltuples is the planner's row count of a table: -1 until it is first analyzed.
func (b *bundle) reltuples(t *testing.T, table string) float64 {
	t.Helper()
	var n float64
	require.NoError(t, b.d.Pool.QueryRow(context.Background(), `SELECT reltuples FROM pg_class WHERE relname = $1`, table).Scan(&n))
	return n
}

// refresh is a statistics refresh job as River keeps it.
type refresh struct {
	ID    int64
	State string
	After int64
}

// refreshes lists the statistics refresh jobs, oldest first.
func (b *bundle) refreshes(t *testing.T) []refresh {
	t.Helper()
	rows, err := b.d.Pool.Query(context.Background(), `SELECT id, state, coalesce((args->>'after')::bigint, 0) FROM river_job WHERE kind = $1 ORDER BY id`,
		service.AnalyzeMembersArgs{}.Kind())
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[refresh])
	require.NoError(t, err)
	return out
}

// work works a job as a River worker would (rivertest: running, then
// completed, or retryable on an error), with svc's worker.
func (b *bundle) work(t *testing.T, svc *service.Service, job *rivertype.JobRow) (*rivertest.WorkResult, error) {
	t.Helper()
	ctx := context.Background()
	w := rivertest.NewWorker(t, riverpgxv5.New(b.d.Pool), &river.Config{}, worker.AnalyzeMembers(svc))
	tx, err := b.d.Pool.Begin(ctx)
	require.NoError(t, err)
	res, werr := w.WorkJob(ctx, t, tx, job)
	require.NoError(t, tx.Commit(ctx))
	return res, werr
}

// TestLargeImportRefreshesStatistics: an import of a thousand members or
// more queues a refresh of the planner's statistics of the members and
// their group memberships (pg_class.reltuples: -1 until a table is first
// analyzed), worked off the request, so the team's pages are planned for
// the team it now is, not for the empty table autovacuum last saw.
func TestLargeImportRefreshesStatistics(t *testing.T) {
	t.Parallel()
	ctx, b := setup(t)
	b.noAutoAnalyze(t)
	require.Equal(t, float64(-1), b.reltuples(t, "roster_members"), "a new database's table was never analyzed")
	require.Equal(t, float64(-1), b.reltuples(t, "roster_group_members"))

	b.importPlayers(t, 1000, 1000)
	require.Equal(t, float64(-1), b.reltuples(t, "roster_members"), "the import answers without analyzing")
	job := rivertest.RequireInserted(ctx, t, riverpgxv5.New(b.d.Pool), service.AnalyzeMembersArgs{},
		&rivertest.RequireInsertedOpts{State: rivertype.JobStateAvailable, MaxAttempts: 3})

	res, err := b.work(t, b.svc, job.JobRow)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind)
	require.Equal(t, float64(1000), b.reltuples(t, "roster_members"))
	require.Equal(t, float64(0), b.reltuples(t, "roster_group_members"), "analyzed, and empty")
}

// TestSmallImportQueuesNoRefresh: under a thousand new members, autovacuum
// is left to it.
func TestSmallImportQueuesNoRefresh(t *testing.T) {
	t.Parallel()
	ctx, b := setup(t)
	b.importPlayers(t, 1000, 999)
	rivertest.RequireNotInserted(ctx, t, riverpgxv5.New(b.d.Pool), service.AnalyzeMembersArgs{}, nil)
}

// TestImportsShareAPendingRefresh: imports that finish while a refresh is
// queued and not started leave that one refresh; once it has run, the next
// import queues another.
func TestImportsShareAPendingRefresh(t *testing.T) {
	t.Parallel()
	ctx, b := setup(t)
	b.importPlayers(t, 1000, 1000)
	b.importPlayers(t, 2000, 1000)
	job := rivertest.RequireInserted(ctx, t, riverpgxv5.New(b.d.Pool), service.AnalyzeMembersArgs{}, // one, or it fails
		&rivertest.RequireInsertedOpts{State: rivertype.JobStateAvailable})

	_, err := b.work(t, b.svc, job.JobRow)
	require.NoError(t, err)
	b.importPlayers(t, 3000, 1000)
	rs := b.refreshes(t)
	require.Len(t, rs, 2, "%+v", rs)
	require.Equal(t, refresh{ID: job.ID, State: "completed"}, rs[0])
	require.Equal(t, refresh{ID: rs[1].ID, State: "available"}, rs[1])
}

// TestImportAfterARunningRefreshQueuesAnother: a refresh already running
// when an import's rows are committed may have sampled the tables before
// them, so the import queues one to follow it; imports finishing during
// the same run share that follower.
func TestImportAfterARunningRefreshQueuesAnother(t *testing.T) {
	t.Parallel()
	ctx, b := setup(t)
	b.importPlayers(t, 1000, 1000)
	first := b.refreshes(t)[0].ID
	// As River's producer leaves the job it hands a worker.
	_, err := b.d.Pool.Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now() WHERE id = $1`, first)
	require.NoError(t, err)

	b.importPlayers(t, 2000, 1000)
	b.importPlayers(t, 3000, 1000)
	rs := b.refreshes(t)
	require.Len(t, rs, 2, "%+v", rs)
	follower := rs[1].ID
	require.Equal(t, []refresh{{ID: first, State: "running"}, {ID: follower, State: "available", After: first}}, rs)

	// The follower starts too, before the next import commits: that one
	// follows the follower.
	_, err = b.d.Pool.Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now() WHERE id = $1`, follower)
	require.NoError(t, err)
	b.importPlayers(t, 4000, 1000)
	rs = b.refreshes(t)
	require.Len(t, rs, 3, "%+v", rs)
	require.Equal(t, []refresh{{ID: first, State: "running"}, {ID: follower, State: "running", After: first},
		{ID: rs[2].ID, State: "available", After: follower}}, rs)
}

// failingAnalyze is the roster's import store whose ANALYZE fails.
type failingAnalyze struct{ service.ImportStore }

func (failingAnalyze) AnalyzeMembers(context.Context) error {
	return errors.New("canceling statement due to lock timeout")
}

// TestFailedRefreshIsRetried: a failed ANALYZE fails the job's attempt, so
// River tries it again.
func TestFailedRefreshIsRetried(t *testing.T) {
	t.Parallel()
	ctx, b := setup(t)
	b.noAutoAnalyze(t)
	b.importPlayers(t, 1000, 1000)
	job := rivertest.RequireInserted(ctx, t, riverpgxv5.New(b.d.Pool), service.AnalyzeMembersArgs{}, nil)

	st := storesOf(b.repo)
	st.Imports = failingAnalyze{b.repo}
	svc := service.New(b.d, st, billingtest.New(clock.NewFake(t0)), b.rec, b.jobs, clock.NewFake(t0), slog.New(slog.DiscardHandler), nil, nil)
	res, err := b.work(t, svc, job.JobRow)
	require.ErrorContains(t, err, "lock timeout")
	require.ErrorContains(t, err, "roster statistics not refreshed")
	require.Equal(t, river.EventKindJobFailed, res.EventKind)
	// River makes a retry due within seconds available at once.
	require.Contains(t, []rivertype.JobState{rivertype.JobStateRetryable, rivertype.JobStateAvailable}, res.Job.State)
	require.Len(t, res.Job.Errors, 1)
	require.Equal(t, float64(-1), b.reltuples(t, "roster_members"))
}
