package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/platform/db"
)

// The dashboard's sign-in codes, sessions and activity log.

type signInCodeRow struct {
	bun.BaseModel `bun:"table:roster_signin_codes"`
	ID            string     `bun:"id,pk"`
	Identity      string     `bun:"identity"`
	Salt          []byte     `bun:"salt"`
	Hash          []byte     `bun:"hash"`
	Attempts      int        `bun:"attempts"`
	CreatedAt     time.Time  `bun:"created_at"`
	ExpiresAt     time.Time  `bun:"expires_at"`
	UsedAt        *time.Time `bun:"used_at"`
}

type sessionRow struct {
	bun.BaseModel `bun:"table:roster_sessions"`
	ID            string    `bun:"id,pk"`
	TokenHash     []byte    `bun:"token_hash"`
	Identity      string    `bun:"identity"`
	MemberID      string    `bun:"member_id"`
	Picked        bool      `bun:"picked"`
	CSRF          string    `bun:"csrf"`
	CreatedAt     time.Time `bun:"created_at"`
	ExpiresAt     time.Time `bun:"expires_at"`
}

type activityRow struct {
	bun.BaseModel `bun:"table:roster_activity"`
	ID            string    `bun:"id,pk"`
	TeamID        string    `bun:"team_id"`
	MemberID      string    `bun:"member_id"`
	Action        string    `bun:"action"`
	Object        string    `bun:"object"`
	ClientIP      string    `bun:"client_ip"`
	CreatedAt     time.Time `bun:"created_at"`
}

// InsertSignInCode stores a new code.
func (r *Repo) InsertSignInCode(ctx context.Context, c *domain.SignInCode) error {
	row := signInCodeRow{ID: c.ID, Identity: c.Identity, Salt: c.Salt, Hash: c.Hash, Attempts: c.Attempts, CreatedAt: c.CreatedAt, ExpiresAt: c.ExpiresAt, UsedAt: c.UsedAt}
	if _, err := r.db.IDB(ctx).NewInsert().Model(&row).Exec(ctx); err != nil {
		return fmt.Errorf("insert sign-in code: %w", err)
	}
	return nil
}

// LatestSignInCode reads an identity's newest code, locked for the try
// (domain.ErrNotFound if it has none).
func (r *Repo) LatestSignInCode(ctx context.Context, identity string) (*domain.SignInCode, error) {
	row := new(signInCodeRow)
	err := r.db.IDB(ctx).NewSelect().Model(row).Where("identity = ?", identity).OrderExpr("created_at DESC, id DESC").Limit(1).For("UPDATE").Scan(ctx)
	if err != nil {
		return nil, notFound(err, "select sign-in code")
	}
	c := domain.SignInCode{ID: row.ID, Identity: row.Identity, Salt: row.Salt, Hash: row.Hash, Attempts: row.Attempts, CreatedAt: row.CreatedAt, ExpiresAt: row.ExpiresAt, UsedAt: row.UsedAt}
	return &c, nil
}

// UpdateSignInCode writes a try's outcome.
func (r *Repo) UpdateSignInCode(ctx context.Context, c *domain.SignInCode) error {
	if _, err := r.db.IDB(ctx).NewUpdate().Model((*signInCodeRow)(nil)).Set("attempts = ?, used_at = ?", c.Attempts, c.UsedAt).
		Where("id = ?", c.ID).Exec(ctx); err != nil {
		return fmt.Errorf("update sign-in code: %w", err)
	}
	return nil
}

// Logins are the roster entries of an identity (its phone, or its e-mail
// whatever the case) that have a dashboard login, with their teams, by
// team name: whether each may sign in now is the domain's to say.
func (r *Repo) Logins(ctx context.Context, identity string) ([]domain.Login, error) {
	var ms []memberRow
	err := r.db.IDB(ctx).NewSelect().Model(&ms).
		Where("m.deleted_at IS NULL AND m.dashboard_login AND (m.phone = ? OR lower(m.email) = ?)", identity, identity).
		OrderExpr("m.created_at, m.id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("select logins: %w", err)
	}
	if len(ms) == 0 {
		return nil, nil
	}
	ids := make([]string, 0, len(ms))
	for _, m := range ms {
		ids = append(ids, m.TeamID)
	}
	var ts []teamRow
	if err := r.db.IDB(ctx).NewSelect().Model(&ts).Where("id IN (?)", bun.In(ids)).OrderExpr("name, id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("select login teams: %w", err)
	}
	out := make([]domain.Login, 0, len(ms))
	for _, t := range ts {
		for _, m := range ms {
			if m.TeamID == t.ID {
				out = append(out, domain.Login{Member: m.toDomain(), Team: t.toDomain()})
			}
		}
	}
	return out, nil
}

// InsertSession stores a new session.
func (r *Repo) InsertSession(ctx context.Context, s *domain.Session) error {
	row := sessionRow{ID: s.ID, TokenHash: s.TokenHash, Identity: s.Identity, MemberID: s.MemberID, Picked: s.Picked, CSRF: s.CSRF, CreatedAt: s.CreatedAt, ExpiresAt: s.ExpiresAt}
	if _, err := r.db.IDB(ctx).NewInsert().Model(&row).Exec(ctx); err != nil {
		return fmt.Errorf("insert session: %w", err)
	}
	return nil
}

// SessionByToken reads the unexpired session of a token's hash
// (domain.ErrNotFound if none).
func (r *Repo) SessionByToken(ctx context.Context, hash []byte, now time.Time) (*domain.Session, error) {
	row := new(sessionRow)
	if err := r.db.IDB(ctx).NewSelect().Model(row).Where("token_hash = ? AND expires_at > ?", hash, now).Scan(ctx); err != nil {
		return nil, notFound(err, "select session")
	}
	s := domain.Session{ID: row.ID, TokenHash: row.TokenHash, Identity: row.Identity, MemberID: row.MemberID, Picked: row.Picked, CSRF: row.CSRF, CreatedAt: row.CreatedAt, ExpiresAt: row.ExpiresAt}
	return &s, nil
}

// UpdateSession writes the entry a session acts as.
func (r *Repo) UpdateSession(ctx context.Context, s *domain.Session) error {
	if _, err := r.db.IDB(ctx).NewUpdate().Model((*sessionRow)(nil)).Set("member_id = ?, picked = ?", s.MemberID, s.Picked).
		Where("id = ?", s.ID).Exec(ctx); err != nil {
		return fmt.Errorf("update session: %w", err)
	}
	return nil
}

// DeleteSession ends a session.
func (r *Repo) DeleteSession(ctx context.Context, id string) error {
	if _, err := r.db.IDB(ctx).NewDelete().Model((*sessionRow)(nil)).Where("id = ?", id).Exec(ctx); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// InsertActivity records one dashboard write.
// ActivityLog lists a team's activity, newest first, with each actor's
// roster name, limit+1 rows.
func (r *Repo) ActivityLog(ctx context.Context, teamID string, f domain.ActivityFilter) ([]domain.Activity, error) {
	var out []domain.Activity
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, `SELECT a.id, a.team_id, a.member_id, a.action, a.object, a.client_ip, a.created_at, coalesce(m.name, '')
FROM roster_activity a LEFT JOIN roster_members m ON m.id = a.member_id AND m.team_id = a.team_id
WHERE a.team_id = $1 AND ($4 = '' OR a.member_id = $4) AND ($5 = '' OR a.action = $5)
ORDER BY a.created_at DESC, a.id DESC LIMIT $2 OFFSET $3`, teamID, f.Limit+1, f.Offset, f.MemberID, f.Action)
		if err != nil {
			return err
		}
		var a domain.Activity
		_, err = pgx.ForEachRow(rows, []any{&a.ID, &a.TeamID, &a.MemberID, &a.Action, &a.Object, &a.ClientIP, &a.CreatedAt, &a.MemberName}, func() error {
			out = append(out, a)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list activity: %w", err)
	}
	return out, nil
}

func (r *Repo) InsertActivity(ctx context.Context, a *domain.Activity) error {
	row := activityRow{ID: a.ID, TeamID: a.TeamID, MemberID: a.MemberID, Action: a.Action, Object: a.Object, ClientIP: a.ClientIP, CreatedAt: a.CreatedAt}
	if _, err := r.db.IDB(ctx).NewInsert().Model(&row).Exec(ctx); err != nil {
		return fmt.Errorf("insert activity: %w", err)
	}
	return nil
}

// ActivityActions lists the distinct actions of a team's activity log.
func (r *Repo) ActivityActions(ctx context.Context, teamID string) ([]string, error) {
	var out []string
	err := r.db.IDB(ctx).NewSelect().Model((*activityRow)(nil)).ColumnExpr("DISTINCT action").Where("team_id = ?", teamID).
		OrderExpr("action").Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("activity actions: %w", err)
	}
	return out, nil
}
