package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
)

// This file is the team keywords store (inbound.KeywordStore): a team's
// keywords, the batch's matching ones, and the answers' replies.

// keywordRow is a messaging_keywords row.
type keywordRow struct {
	bun.BaseModel `bun:"table:messaging_keywords,alias:k"`
	ID            string    `bun:"id,pk"`
	TeamID        string    `bun:"team_id"`
	Keyword       string    `bun:"keyword"`
	Reply         string    `bun:"reply"`
	GroupID       string    `bun:"group_id,nullzero"`
	CreatedAt     time.Time `bun:"created_at"`
	UpdatedAt     time.Time `bun:"updated_at"`
}

func (k *keywordRow) toDomain() domain.TeamKeyword {
	return domain.TeamKeyword{ID: k.ID, TeamID: k.TeamID, Keyword: k.Keyword, Reply: k.Reply, GroupID: k.GroupID,
		CreatedAt: k.CreatedAt.UTC(), UpdatedAt: k.UpdatedAt.UTC()}
}

func toKeywordRow(k *domain.TeamKeyword) *keywordRow {
	return &keywordRow{ID: k.ID, TeamID: k.TeamID, Keyword: k.Keyword, Reply: k.Reply, GroupID: k.GroupID,
		CreatedAt: k.CreatedAt, UpdatedAt: k.UpdatedAt}
}

// TeamKeywords lists a team's keywords in keyword order, limit+1 rows.
func (r *Repo) TeamKeywords(ctx context.Context, teamID string, limit, offset int) ([]domain.TeamKeyword, error) {
	var rs []keywordRow
	err := r.db.IDB(ctx).NewSelect().Model(&rs).Where("team_id = ?", teamID).OrderExpr("keyword, id").
		Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list keywords: %w", err)
	}
	out := make([]domain.TeamKeyword, len(rs))
	for i := range rs {
		out[i] = rs[i].toDomain()
	}
	return out, nil
}

// CountTeamKeywords counts a team's keywords.
func (r *Repo) CountTeamKeywords(ctx context.Context, teamID string) (int, error) {
	n, err := r.db.IDB(ctx).NewSelect().Model((*keywordRow)(nil)).Where("team_id = ?", teamID).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count keywords: %w", err)
	}
	return int(n), nil
}

// TeamKeyword loads one of a team's keywords (domain.ErrNotFound for
// another team's id).
func (r *Repo) TeamKeyword(ctx context.Context, teamID, id string) (*domain.TeamKeyword, error) {
	k := new(keywordRow)
	if err := r.selectTeamKeyword(ctx, k, teamID, id).Scan(ctx); err != nil {
		return nil, notFound(err, "select keyword")
	}
	out := k.toDomain()
	return &out, nil
}

// selectTeamKeyword is the statement that reads one of a team's keywords into k.
func (r *Repo) selectTeamKeyword(ctx context.Context, k *keywordRow, teamID, id string) *bun.SelectQuery {
	return r.db.IDB(ctx).NewSelect().Model(k).Where("team_id = ? AND id = ?", teamID, id)
}

// KeywordTaken reports whether the team has the keyword word on another
// keyword than exceptID.
func (r *Repo) KeywordTaken(ctx context.Context, teamID, word, exceptID string) (bool, error) {
	ok, err := r.db.IDB(ctx).NewSelect().Model((*keywordRow)(nil)).Where("team_id = ? AND keyword = ? AND id <> ?", teamID, word, exceptID).Exists(ctx)
	if err != nil {
		return false, fmt.Errorf("keyword taken: %w", err)
	}
	return ok, nil
}

// LockTeamKeywords takes the team's keywords lock for the transaction, so
// the count and duplicate checks of concurrent changes see each other.
func (r *Repo) LockTeamKeywords(ctx context.Context, teamID string) error {
	if _, err := r.db.IDB(ctx).ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('keywords|' || ?, 0))`, teamID); err != nil {
		return fmt.Errorf("lock keywords: %w", err)
	}
	return nil
}

// InsertTeamKeyword stores a keyword.
func (r *Repo) InsertTeamKeyword(ctx context.Context, k *domain.TeamKeyword) error {
	if _, err := r.db.IDB(ctx).NewInsert().Model(toKeywordRow(k)).Exec(ctx); err != nil {
		return fmt.Errorf("insert keyword: %w", err)
	}
	return nil
}

// UpdateTeamKeyword loads one of a team's keywords locked, lets change
// alter it and writes every column back, in one transaction (the
// caller's, if ctx carries one). When change fails nothing is written. It
// answers the keyword as written.
func (r *Repo) UpdateTeamKeyword(ctx context.Context, teamID, id string, change func(*domain.TeamKeyword) error) (*domain.TeamKeyword, error) {
	var out *domain.TeamKeyword
	err := r.db.Tx(ctx, func(ctx context.Context) error {
		row := new(keywordRow)
		if err := r.selectTeamKeyword(ctx, row, teamID, id).For("UPDATE").Scan(ctx); err != nil {
			return notFound(err, "select keyword")
		}
		k := row.toDomain()
		if err := change(&k); err != nil {
			return err
		}
		if _, err := r.db.IDB(ctx).NewUpdate().Model(toKeywordRow(&k)).WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("update keyword: %w", err)
		}
		out = &k
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteTeamKeyword deletes one of a team's keywords; false when it had none with id.
func (r *Repo) DeleteTeamKeyword(ctx context.Context, teamID, id string) (bool, error) {
	res, err := r.db.IDB(ctx).NewDelete().Model((*keywordRow)(nil)).Where("team_id = ? AND id = ?", teamID, id).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("delete keyword: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// MatchTeamKeywords returns the keywords among words, each of its own
// team, in one statement (an index lookup per distinct pair).
func (r *Repo) MatchTeamKeywords(ctx context.Context, words []domain.TeamWord) ([]domain.TeamKeyword, error) {
	teams, ws := make([]string, len(words)), make([]string, len(words))
	for i, w := range words {
		teams[i], ws[i] = w.TeamID, w.Word
	}
	rows, err := r.db.SQL(ctx).QueryContext(ctx, `SELECT k.id, k.team_id, k.keyword, k.reply, coalesce(k.group_id, ''), k.created_at, k.updated_at
FROM messaging_keywords k
JOIN (SELECT DISTINCT team_id, word FROM unnest($1::text[], $2::text[]) AS u(team_id, word)) v ON k.team_id = v.team_id AND k.keyword = v.word`, teams, ws)
	if err != nil {
		return nil, fmt.Errorf("match %d keywords: %w", len(words), err)
	}
	defer rows.Close()
	var out []domain.TeamKeyword
	for rows.Next() {
		var k domain.TeamKeyword
		if err := rows.Scan(&k.ID, &k.TeamID, &k.Keyword, &k.Reply, &k.GroupID, &k.CreatedAt, &k.UpdatedAt); err != nil {
			return nil, fmt.Errorf("match keywords: %w", err)
		}
		k.CreatedAt, k.UpdatedAt = k.CreatedAt.UTC(), k.UpdatedAt.UTC()
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("match keywords: %w", err)
	}
	return out, nil
}

// InsertReplies stores replies in one statement.
func (r *Repo) InsertReplies(ctx context.Context, rps []*domain.Reply) error {
	if len(rps) == 0 {
		return nil
	}
	rows := make([]*replyRow, len(rps))
	for i, rp := range rps {
		rows[i] = toReplyRow(rp)
	}
	if _, err := r.db.IDB(ctx).NewInsert().Model(&rows).Exec(ctx); err != nil {
		return fmt.Errorf("insert %d replies: %w", len(rps), err)
	}
	return nil
}
