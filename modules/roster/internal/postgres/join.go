package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
)

// Joining by text (sign-up conversations) and on the web (sign-up codes).

type conversationRow struct {
	bun.BaseModel    `bun:"table:roster_join_conversations,alias:c"`
	ID               string         `bun:"id,pk"`
	TeamID           string         `bun:"team_id"`
	Phone            string         `bun:"phone"`
	Role             rosterapi.Role `bun:"role"`
	State            string         `bun:"state"`
	Keyword          string         `bun:"keyword"`
	KeywordMessageID string         `bun:"keyword_message_id"`
	NameMessageID    *string        `bun:"name_message_id"`
	MemberID         *string        `bun:"member_id"`
	StartedAt        time.Time      `bun:"started_at"`
	ExpiresAt        time.Time      `bun:"expires_at"`
	UpdatedAt        time.Time      `bun:"updated_at"`
}

func (r *conversationRow) toDomain() domain.Conversation {
	c := domain.Conversation{ID: r.ID, TeamID: r.TeamID, Phone: r.Phone, Role: r.Role, State: r.State, Keyword: r.Keyword,
		KeywordMessageID: r.KeywordMessageID, StartedAt: r.StartedAt, ExpiresAt: r.ExpiresAt, UpdatedAt: r.UpdatedAt}
	if r.NameMessageID != nil {
		c.NameMessageID = *r.NameMessageID
	}
	if r.MemberID != nil {
		c.MemberID = *r.MemberID
	}
	return c
}

func toConversationRow(c *domain.Conversation) *conversationRow {
	return &conversationRow{ID: c.ID, TeamID: c.TeamID, Phone: c.Phone, Role: c.Role, State: c.State, Keyword: c.Keyword,
		KeywordMessageID: c.KeywordMessageID, NameMessageID: nullable(c.NameMessageID), MemberID: nullable(c.MemberID),
		StartedAt: c.StartedAt, ExpiresAt: c.ExpiresAt, UpdatedAt: c.UpdatedAt}
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// OpenConversations returns the conversations awaiting a name (expired or
// not) of the (team, phone) pairs teams[i], phones[i], locked for the
// batch, in one statement.
func (r *Repo) OpenConversations(ctx context.Context, teams, phones []string) ([]domain.Conversation, error) {
	var rows []conversationRow
	err := r.db.IDB(ctx).NewSelect().Model(&rows).
		Join("JOIN unnest(?::text[], ?::text[]) AS v(team_id, phone) ON c.team_id = v.team_id AND c.phone = v.phone",
			pgdialect.Array(teams), pgdialect.Array(phones)).
		Where("c.state = ?", domain.JoinAwaitingName).OrderExpr("c.team_id, c.phone").For("UPDATE OF c").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("select open join conversations: %w", err)
	}
	out := make([]domain.Conversation, len(rows))
	for i := range rows {
		out[i] = rows[i].toDomain()
	}
	return out, nil
}

// InsertConversation stores a new conversation; false when its keyword
// text already opened one (the same text filed twice).
func (r *Repo) InsertConversation(ctx context.Context, c *domain.Conversation) (bool, error) {
	res, err := r.db.IDB(ctx).NewInsert().Model(toConversationRow(c)).On("CONFLICT (keyword_message_id) DO NOTHING").Exec(ctx)
	return changedOne(res, err, "insert join conversation")
}

// UpdateConversation writes a conversation's state, role, name text and
// member.
func (r *Repo) UpdateConversation(ctx context.Context, c *domain.Conversation) error {
	_, err := r.db.IDB(ctx).NewUpdate().Model(toConversationRow(c)).
		Column("state", "role", "keyword", "name_message_id", "member_id", "updated_at").WherePK().Exec(ctx)
	if err != nil {
		return fmt.Errorf("update join conversation: %w", err)
	}
	return nil
}

// StopConversation ends a number's open conversation (STOP), if any.
func (r *Repo) StopConversation(ctx context.Context, teamID, phone string, at time.Time) error {
	_, err := r.db.IDB(ctx).NewUpdate().Model((*conversationRow)(nil)).Set("state = ?, updated_at = ?", domain.JoinStopped, at).
		Where("team_id = ? AND phone = ? AND state = ?", teamID, phone, domain.JoinAwaitingName).Exec(ctx)
	if err != nil {
		return fmt.Errorf("stop join conversation: %w", err)
	}
	return nil
}

type joinCodeRow struct {
	bun.BaseModel     `bun:"table:roster_join_codes"`
	ID                string         `bun:"id,pk"`
	TeamID            string         `bun:"team_id"`
	Phone             string         `bun:"phone"`
	Name              string         `bun:"name"`
	Role              rosterapi.Role `bun:"role"`
	DisclosureVersion string         `bun:"disclosure_version"`
	ClientIP          string         `bun:"client_ip"`
	Salt              []byte         `bun:"salt"`
	Hash              []byte         `bun:"hash"`
	Attempts          int            `bun:"attempts"`
	CreatedAt         time.Time      `bun:"created_at"`
	ExpiresAt         time.Time      `bun:"expires_at"`
	UsedAt            *time.Time     `bun:"used_at"`
}

// InsertJoinCode stores a web sign-up's code.
func (r *Repo) InsertJoinCode(ctx context.Context, c *domain.JoinCode) error {
	row := joinCodeRow{ID: c.ID, TeamID: c.TeamID, Phone: c.Identity, Name: c.Name, Role: c.Role, DisclosureVersion: c.DisclosureVersion,
		ClientIP: c.ClientIP, Salt: c.Salt, Hash: c.Hash, Attempts: c.Attempts, CreatedAt: c.CreatedAt, ExpiresAt: c.ExpiresAt, UsedAt: c.UsedAt}
	if _, err := r.db.IDB(ctx).NewInsert().Model(&row).Exec(ctx); err != nil {
		return fmt.Errorf("insert join code: %w", err)
	}
	return nil
}

// LatestJoinCode reads a phone's newest sign-up code on a team, locked for
// the try (domain.ErrNotFound if none).
func (r *Repo) LatestJoinCode(ctx context.Context, teamID, phone string) (*domain.JoinCode, error) {
	row := new(joinCodeRow)
	err := r.db.IDB(ctx).NewSelect().Model(row).Where("team_id = ? AND phone = ?", teamID, phone).
		OrderExpr("created_at DESC, id DESC").Limit(1).For("UPDATE").Scan(ctx)
	if err != nil {
		return nil, notFound(err, "select join code")
	}
	return &domain.JoinCode{SignInCode: domain.SignInCode{ID: row.ID, Identity: row.Phone, Salt: row.Salt, Hash: row.Hash, Attempts: row.Attempts,
		CreatedAt: row.CreatedAt, ExpiresAt: row.ExpiresAt, UsedAt: row.UsedAt}, TeamID: row.TeamID, Name: row.Name, Role: row.Role,
		DisclosureVersion: row.DisclosureVersion, ClientIP: row.ClientIP}, nil
}

// UpdateJoinCode writes a try's outcome.
func (r *Repo) UpdateJoinCode(ctx context.Context, c *domain.JoinCode) error {
	if _, err := r.db.IDB(ctx).NewUpdate().Model((*joinCodeRow)(nil)).Set("attempts = ?, used_at = ?", c.Attempts, c.UsedAt).
		Where("id = ?", c.ID).Exec(ctx); err != nil {
		return fmt.Errorf("update join code: %w", err)
	}
	return nil
}

// TeamByCode loads the team with code (domain.ErrNotFound if none).
func (r *Repo) TeamByCode(ctx context.Context, code string) (*domain.Team, error) {
	t := new(teamRow)
	if err := r.db.IDB(ctx).NewSelect().Model(t).Where("code = ?", code).Scan(ctx); err != nil {
		return nil, notFound(err, "select team by code")
	}
	out := t.toDomain()
	return &out, nil
}
