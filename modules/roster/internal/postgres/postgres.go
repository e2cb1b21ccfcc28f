// Package postgres stores the roster in Postgres through bun, and embeds the
// roster's migrations.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/uptrace/bun"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/ratelimit"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations is the roster's schema history.
func Migrations() db.MigrationSet { return db.Embedded("roster", 10, migrationFiles, "migrations") }

// teamRow is a roster_teams row.
type teamRow struct {
	bun.BaseModel    `bun:"table:roster_teams"`
	ID               string    `bun:"id,pk"`
	Name             string    `bun:"name"`
	Code             string    `bun:"code"`
	Number           string    `bun:"number"`
	TimeZone         string    `bun:"time_zone"`
	ApprovalRequired bool      `bun:"approval_required"`
	JoinApproval     bool      `bun:"join_approval_required"`
	Disabled         bool      `bun:"disabled"`
	Locked           bool      `bun:"locked"`
	CreatedAt        time.Time `bun:"created_at"`
}

// toDomain maps a row to what it stores.
func (r *teamRow) toDomain() domain.Team {
	return domain.Team{ID: r.ID, Name: r.Name, Code: r.Code, Number: r.Number, TimeZone: r.TimeZone, ApprovalRequired: r.ApprovalRequired, JoinApprovalRequired: r.JoinApproval, Disabled: r.Disabled, Locked: r.Locked, CreatedAt: r.CreatedAt}
}

// toTeamRow maps a domain value to its row.
func toTeamRow(d *domain.Team) *teamRow {
	return &teamRow{ID: d.ID, Name: d.Name, Code: d.Code, Number: d.Number, TimeZone: d.TimeZone, ApprovalRequired: d.ApprovalRequired, JoinApproval: d.JoinApprovalRequired, Disabled: d.Disabled, Locked: d.Locked, CreatedAt: d.CreatedAt}
}

// memberRow is a roster_members row (domain.Member in storage).
type memberRow struct {
	bun.BaseModel     `bun:"table:roster_members,alias:m"`
	ID                string         `bun:"id,pk"`
	TeamID            string         `bun:"team_id"`
	Name              string         `bun:"name"`
	Phone             string         `bun:"phone"`
	Email             string         `bun:"email"`
	Role              rosterapi.Role `bun:"role"`
	Status            string         `bun:"status"`
	IsBlocked         bool           `bun:"is_blocked"`
	DashboardLogin    bool           `bun:"dashboard_login"`
	CanSendBroadcasts bool           `bun:"can_send_broadcasts"`
	TimeZone          string         `bun:"time_zone"`
	CreatedAt         time.Time      `bun:"created_at"`
	UpdatedAt         time.Time      `bun:"updated_at"`
	DeletedAt         *time.Time     `bun:"deleted_at"`
	// The consent record (consent.go).
	consentRow
}

// toDomain maps a row to the member it stores.
func (r *memberRow) toDomain() domain.Member {
	return domain.Member{ID: r.ID, TeamID: r.TeamID, Name: r.Name, Phone: r.Phone, Email: r.Email, Role: r.Role, Status: r.Status,
		IsBlocked: r.IsBlocked, DashboardLogin: r.DashboardLogin, CanSendBroadcasts: r.CanSendBroadcasts, TimeZone: r.TimeZone,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, DeletedAt: r.DeletedAt,
		MemberConsent: domain.MemberConsent{ConsentSource: r.ConsentSource, ConsentAt: r.ConsentAt, ConsentEvidence: r.ConsentEvidence}}
}

// toMemberRow maps a member to its row.
func toMemberRow(m *domain.Member) *memberRow {
	return &memberRow{ID: m.ID, TeamID: m.TeamID, Name: m.Name, Phone: m.Phone, Email: m.Email, Role: m.Role, Status: m.Status,
		IsBlocked: m.IsBlocked, DashboardLogin: m.DashboardLogin, CanSendBroadcasts: m.CanSendBroadcasts, TimeZone: m.TimeZone,
		CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, DeletedAt: m.DeletedAt,
		consentRow: consentRow{ConsentSource: m.ConsentSource, ConsentAt: m.ConsentAt, ConsentEvidence: m.ConsentEvidence}}
}

// apiKeyRow is a roster_api_keys row.
type apiKeyRow struct {
	bun.BaseModel `bun:"table:roster_api_keys"`
	ID            string     `bun:"id,pk"`
	TeamID        string     `bun:"team_id"`
	MemberID      string     `bun:"member_id"`
	Name          string     `bun:"name"`
	Lookup        string     `bun:"lookup"`
	Hash          []byte     `bun:"hash"`
	CreatedAt     time.Time  `bun:"created_at"`
	RevokedAt     *time.Time `bun:"revoked_at"`
	RevokedReason string     `bun:"revoked_reason"`
	LastUsedAt    *time.Time `bun:"last_used_at"`
}

// toDomain maps a row to what it stores.
func (r *apiKeyRow) toDomain() domain.APIKey {
	return domain.APIKey{ID: r.ID, TeamID: r.TeamID, MemberID: r.MemberID, Name: r.Name, Lookup: r.Lookup, Hash: r.Hash, CreatedAt: r.CreatedAt, RevokedAt: r.RevokedAt, RevokedReason: r.RevokedReason, LastUsedAt: r.LastUsedAt}
}

// toAPIKeyRow maps a domain value to its row.
func toAPIKeyRow(d *domain.APIKey) *apiKeyRow {
	return &apiKeyRow{ID: d.ID, TeamID: d.TeamID, MemberID: d.MemberID, Name: d.Name, Lookup: d.Lookup, Hash: d.Hash, CreatedAt: d.CreatedAt, RevokedAt: d.RevokedAt, RevokedReason: d.RevokedReason}
}

// Repo is the roster's repository. Every read that takes an id also takes the team id.
type Repo struct{ db *db.DB }

// NewRepo returns a repository over d.
func NewRepo(d *db.DB) *Repo { return &Repo{db: d} }

func notFound(err error, what string) error { return db.NotFound(err, domain.ErrNotFound, what) }

// changedOne is whether a statement's Exec (res, err) changed exactly one
// row: an insert that met no conflict, a delete that found its row. The
// pgx driver's RowsAffected never fails.
func changedOne(res sql.Result, err error, what string) (bool, error) {
	if err != nil {
		return false, fmt.Errorf("%s: %w", what, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// InsertTeam stores a new team.
func (r *Repo) InsertTeam(ctx context.Context, t *domain.Team) error {
	if _, err := r.db.IDB(ctx).NewInsert().Model(toTeamRow(t)).Exec(ctx); err != nil {
		return fmt.Errorf("insert team: %w", err)
	}
	return nil
}

// Team loads a team by id.
func (r *Repo) Team(ctx context.Context, id string) (*domain.Team, error) {
	t := new(teamRow)
	if err := selectTeam(r.db.IDB(ctx), t, id).Scan(ctx); err != nil {
		return nil, notFound(err, "select team")
	}
	out := t.toDomain()
	return &out, nil
}

// selectTeam is Team's statement: the team id's row into t.
func selectTeam(idb bun.IDB, t *teamRow, id string) *bun.SelectQuery {
	return idb.NewSelect().Model(t).Where("id = ?", id)
}

// TeamsByID reads the teams of ids (those that exist).
func (r *Repo) TeamsByID(ctx context.Context, ids []string) ([]domain.Team, error) {
	var ts []teamRow
	if len(ids) == 0 {
		return nil, nil
	}
	if err := r.db.IDB(ctx).NewSelect().Model(&ts).Where("id IN (?)", bun.In(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("select teams: %w", err)
	}
	return toDomains[domain.Team](ts), nil
}

// UpdateTeam writes every column of t.
func (r *Repo) UpdateTeam(ctx context.Context, t *domain.Team) error {
	if _, err := r.db.IDB(ctx).NewUpdate().Model(toTeamRow(t)).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("update team: %w", err)
	}
	return nil
}

// InsertMember stores a new member.
func (r *Repo) InsertMember(ctx context.Context, m *domain.Member) error {
	if _, err := r.db.IDB(ctx).NewInsert().Model(toMemberRow(m)).Exec(ctx); err != nil {
		return fmt.Errorf("insert member: %w", err)
	}
	return nil
}

// Member loads a team's member (not deleted).
func (r *Repo) Member(ctx context.Context, teamID, id string) (*domain.Member, error) {
	return r.member(ctx, teamID, id, "")
}

// LockMember loads a team's member (not deleted) and locks its row
// (SELECT ... FOR UPDATE) for the rest of the caller's transaction.
func (r *Repo) LockMember(ctx context.Context, teamID, id string) (*domain.Member, error) {
	return r.member(ctx, teamID, id, "UPDATE")
}

// member is Member, with lock as the SELECT's FOR clause ("" for none).
func (r *Repo) member(ctx context.Context, teamID, id, lock string) (*domain.Member, error) {
	m := new(memberRow)
	q := r.db.IDB(ctx).NewSelect().Model(m).Where("team_id = ? AND id = ? AND deleted_at IS NULL", teamID, id)
	if lock != "" {
		q = q.For(lock)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, notFound(err, "select member")
	}
	out := m.toDomain()
	return &out, nil
}

// UpdateMember changes a team's member (not deleted) in the caller's
// transaction: it locks the row, lets change state the change (an error
// leaves the row as it was) and writes every column back. It answers the
// member as written.
func (r *Repo) UpdateMember(ctx context.Context, teamID, id string, change func(*domain.Member) error) (*domain.Member, error) {
	m, err := r.LockMember(ctx, teamID, id)
	if err != nil {
		return nil, err
	}
	if err := change(m); err != nil {
		return nil, err
	}
	if err := r.WriteMember(ctx, m); err != nil {
		return nil, err
	}
	return m, nil
}

// WriteMember writes every column of m.
func (r *Repo) WriteMember(ctx context.Context, m *domain.Member) error {
	if _, err := r.db.IDB(ctx).NewUpdate().Model(toMemberRow(m)).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("update member: %w", err)
	}
	return nil
}

// InsertKey stores a new key (hash and lookup only).
func (r *Repo) InsertKey(ctx context.Context, k *domain.APIKey) error {
	if _, err := r.db.IDB(ctx).NewInsert().Model(toAPIKeyRow(k)).Exec(ctx); err != nil {
		return fmt.Errorf("insert api key: %w", err)
	}
	return nil
}

// Keys lists a team's keys, newest first, limit+1 rows for pagination.
func (r *Repo) Keys(ctx context.Context, teamID string, limit, offset int) ([]domain.APIKey, error) {
	var ks []apiKeyRow
	err := r.db.IDB(ctx).NewSelect().Model(&ks).Where("team_id = ?", teamID).
		OrderExpr("created_at DESC, id DESC").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	return toDomains[domain.APIKey](ks), nil
}

// Key loads one of a team's keys, locked for update.
func (r *Repo) Key(ctx context.Context, teamID, id string) (*domain.APIKey, error) {
	k := new(apiKeyRow)
	err := r.db.IDB(ctx).NewSelect().Model(k).Where("team_id = ? AND id = ?", teamID, id).For("UPDATE").Scan(ctx)
	if err != nil {
		return nil, notFound(err, "select api key")
	}
	out := k.toDomain()
	return &out, nil
}

// RevokeMemberKeys revokes every active key of a member and returns them.
func (r *Repo) RevokeMemberKeys(ctx context.Context, teamID, memberID, reason string, at time.Time) ([]domain.APIKey, error) {
	var ks []apiKeyRow
	_, err := r.db.IDB(ctx).NewUpdate().Model(&ks).
		Set("revoked_at = ?", at).Set("revoked_reason = ?", reason).
		Where("team_id = ? AND member_id = ? AND revoked_at IS NULL", teamID, memberID).
		Returning("*").Exec(ctx, &ks)
	if err != nil {
		return nil, fmt.Errorf("revoke member keys: %w", err)
	}
	return toDomains[domain.APIKey](ks), nil
}

// RevokeKey marks one key revoked.
func (r *Repo) RevokeKey(ctx context.Context, k *domain.APIKey) error {
	_, err := r.db.IDB(ctx).NewUpdate().Model(toAPIKeyRow(k)).Column("revoked_at", "revoked_reason").WherePK().Exec(ctx)
	if err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	return nil
}

// KeyAuthSQL is the API gate's one statement: a key by lookup prefix ($1)
// with its team and creator, and the team's billing account through
// account, billing's own sub-select for k.team_id
// (billingapi.Accounts.AccessSQL); and, in the same statement, the
// request limit's check (ratelimit.CheckCTEs) on the bucket $3 || key id,
// made only when the key may act: its hash is $2, it is not revoked, its
// creator is on the roster and not blocked, its team neither disabled nor
// locked, it has an account, whose plan is among $4 (NULL: any) and which
// has a card on file if $5. The service checks the same conditions in Go,
// in the spec's order, to answer a refusal. Build it once: the text is
// then the same for every request and pgx prepares it once per connection.
func KeyAuthSQL(account string) string {
	return `WITH a AS (
SELECT k.id AS key_id, k.hash, k.revoked_at, t.id AS team_id, t.code, t.name, t.number, t.time_zone, t.disabled, t.locked,
       m.id AS member_id, m.is_blocked, m.role, m.can_send_broadcasts, (m.deleted_at IS NOT NULL) AS member_gone,
       acc.plan, acc.card_on_file, acc.payment_state, acc.trial, acc.trial_credits
FROM roster_api_keys k
JOIN roster_teams t ON t.id = k.team_id
JOIN roster_members m ON m.id = k.member_id
LEFT JOIN LATERAL (` + account + `) acc ON true
WHERE k.lookup = $1),
-- The key's last use, written at most once a minute (the dashboard's list):
-- a no-op for every other request, in this same statement.
touched AS (
UPDATE roster_api_keys k SET last_used_at = now()
FROM a WHERE k.id = a.key_id AND a.hash = $2::bytea AND a.revoked_at IS NULL
  AND (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute')),
rl_src AS (
SELECT $3::text || a.key_id AS bucket FROM a
WHERE a.hash = $2::bytea AND a.revoked_at IS NULL AND NOT a.member_gone AND NOT a.is_blocked AND NOT a.disabled AND NOT a.locked
  AND a.plan IS NOT NULL AND ($4::text[] IS NULL OR a.plan = ANY($4::text[])) AND (NOT $5::bool OR a.card_on_file)),
` + ratelimit.CheckCTEs("rl_src", 6) + `
SELECT a.*, rl.admitted, rl.hits, rl.now FROM a LEFT JOIN rl ON true`
}

// KeyAuthSQL is the package's KeyAuthSQL, for the service's store
// contract: the service builds the gate's statement once, at start.
func (r *Repo) KeyAuthSQL(account string) string { return KeyAuthSQL(account) }

// KeyAuth runs query, built by KeyAuthSQL, for q.
func (r *Repo) KeyAuth(ctx context.Context, query string, q domain.KeyAuthQuery) (*domain.KeyAuth, error) {
	var (
		a        = new(domain.KeyAuth)
		admitted *bool
		hits     []pgtype.Timestamptz
		now      *time.Time
	)
	var plans any // a nil []string would be sent as an empty array
	if q.APIPlans != nil {
		plans = q.APIPlans
	}
	args := append([]any{q.Lookup, q.Hash, q.Bucket, plans, q.NeedCard}, q.Limit.Args()...)
	err := r.db.WithPgx(ctx, func(pq db.PgxQuerier) error {
		return pq.QueryRow(ctx, query, args...).Scan(&a.KeyID, &a.Hash, &a.RevokedAt, &a.TeamID, &a.TeamCode, &a.TeamName, &a.TeamNumber,
			&a.TimeZone, &a.Disabled, &a.Locked, &a.MemberID, &a.Blocked, &a.Role, &a.CanBroadcst, &a.MemberGone,
			&a.Plan, &a.CardOnFile, &a.PaymentState, &a.Trial, &a.TrialCredits, &admitted, &hits, &now)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, domain.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("select key: %w", err)
	}
	if admitted != nil && now != nil {
		d := q.Limit.Decision(*admitted, hits, *now)
		a.Limit = &d
	}
	return a, nil
}

// MembersByRole lists a team's (not deleted) members with one of roles.
func (r *Repo) MembersByRole(ctx context.Context, teamID string, roles ...rosterapi.Role) ([]domain.Member, error) {
	var ms []memberRow
	err := r.db.IDB(ctx).NewSelect().Model(&ms).
		Where("team_id = ? AND deleted_at IS NULL AND role IN (?)", teamID, bun.In(roles)).
		OrderExpr("created_at, id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("members by role: %w", err)
	}
	return toDomains[domain.Member](ms), nil
}

// TeamsByNumbers loads the teams whose numbers are among e164s.
func (r *Repo) TeamsByNumbers(ctx context.Context, e164s []string) ([]domain.Team, error) {
	var ts []teamRow
	if len(e164s) == 0 {
		return nil, nil
	}
	if err := r.db.IDB(ctx).NewSelect().Model(&ts).Where("number IN (?)", bun.In(e164s)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("select teams by number: %w", err)
	}
	return toDomains[domain.Team](ts), nil
}

// TeamByNumber loads the team with number e164.
func (r *Repo) TeamByNumber(ctx context.Context, e164 string) (*domain.Team, error) {
	t := new(teamRow)
	if err := r.db.IDB(ctx).NewSelect().Model(t).Where("number = ?", e164).Scan(ctx); err != nil {
		return nil, notFound(err, "select team by number")
	}
	out := t.toDomain()
	return &out, nil
}

// toDomains maps rows to the domain values they store, each with its
// row type's toDomain.
func toDomains[D any, R any, P interface {
	*R
	toDomain() D
}](rs []R) []D {
	out := make([]D, len(rs))
	for i := range rs {
		out[i] = P(&rs[i]).toDomain()
	}
	return out
}
