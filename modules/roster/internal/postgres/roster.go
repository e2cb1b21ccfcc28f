package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/db"
)

// groupRow is a roster_groups row.
type groupRow struct {
	bun.BaseModel `bun:"table:roster_groups,alias:g"`
	ID            string    `bun:"id,pk"`
	TeamID        string    `bun:"team_id"`
	Name          string    `bun:"name"`
	CreatedAt     time.Time `bun:"created_at"`
	MemberCount   int       `bun:"member_count,scanonly"`
}

// toDomain maps a row to what it stores.
func (r *groupRow) toDomain() domain.Group {
	return domain.Group{ID: r.ID, TeamID: r.TeamID, Name: r.Name, CreatedAt: r.CreatedAt, MemberCount: r.MemberCount}
}

// toGroupRow maps a domain value to its row.
func toGroupRow(d *domain.Group) *groupRow {
	return &groupRow{ID: d.ID, TeamID: d.TeamID, Name: d.Name, CreatedAt: d.CreatedAt, MemberCount: d.MemberCount}
}

// customFieldRow is a roster_custom_fields row.
type customFieldRow struct {
	bun.BaseModel `bun:"table:roster_custom_fields"`
	ID            string    `bun:"id,pk"`
	TeamID        string    `bun:"team_id"`
	Label         string    `bun:"label"`
	Key           string    `bun:"key"`
	Private       bool      `bun:"private"`
	CreatedAt     time.Time `bun:"created_at"`
}

// toDomain maps a row to what it stores.
func (r *customFieldRow) toDomain() domain.CustomField {
	return domain.CustomField{ID: r.ID, TeamID: r.TeamID, Label: r.Label, Key: r.Key, Private: r.Private, CreatedAt: r.CreatedAt}
}

// toCustomFieldRow maps a domain value to its row.
func toCustomFieldRow(d *domain.CustomField) *customFieldRow {
	return &customFieldRow{ID: d.ID, TeamID: d.TeamID, Label: d.Label, Key: d.Key, Private: d.Private, CreatedAt: d.CreatedAt}
}

// optOutRow is a roster_opt_outs row.
type optOutRow struct {
	bun.BaseModel `bun:"table:roster_opt_outs"`
	TeamID        string    `bun:"team_id,pk"`
	Phone         string    `bun:"phone,pk"`
	Source        string    `bun:"source"`
	CreatedAt     time.Time `bun:"created_at"`
}

// toDomain maps a row to what it stores.
func (r *optOutRow) toDomain() domain.OptOut {
	return domain.OptOut{TeamID: r.TeamID, Phone: r.Phone, Source: r.Source, CreatedAt: r.CreatedAt}
}

// toOptOutRow maps a domain value to its row.
func toOptOutRow(d *domain.OptOut) *optOutRow {
	return &optOutRow{TeamID: d.TeamID, Phone: d.Phone, Source: d.Source, CreatedAt: d.CreatedAt}
}

// memberColumns are a Member's columns in scanMember's order.
const memberColumns = `m.id, m.team_id, m.name, m.phone, m.email, m.role, m.status, m.is_blocked, m.dashboard_login,
       m.can_send_broadcasts, m.time_zone, m.created_at, m.updated_at, m.deleted_at,
       ` + consentColumns

func memberDest(m *domain.Member) []any {
	return append([]any{&m.ID, &m.TeamID, &m.Name, &m.Phone, &m.Email, &m.Role, &m.Status, &m.IsBlocked, &m.DashboardLogin,
		&m.CanSendBroadcasts, &m.TimeZone, &m.CreatedAt, &m.UpdatedAt, &m.DeletedAt},
		consentDest(&m.MemberConsent)...)
}

// maxPageAlloc caps what MemberPage sets aside before reading (a page of
// at most 200, the API's limit, and its one more); longer reads grow.
const maxPageAlloc = 201

// MemberPage lists a team's members (not deleted), limit+1 rows, with each
// member's group ids, in one prepared statement: the filters in use pick
// one of a few fixed texts (each with $n parameters, so pgx prepares each
// once per connection), and the group ids come from an index-only scan per
// member (see GroupIDsSQL).
func (r *Repo) MemberPage(ctx context.Context, teamID string, f domain.MemberFilter) ([]domain.Member, [][]string, []*time.Time, error) {
	query, args := memberPageSQL(teamID, f)
	// Sized for the page up front: growing them row by row was 2.5% of the
	// service's CPU per 200-member page.
	n := min(f.Limit+1, maxPageAlloc)
	ms, groups, marks := make([]domain.Member, 0, n), make([][]string, 0, n), make([]*time.Time, 0, n)
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		var (
			m     domain.Member
			gs    []string
			since *time.Time
		)
		_, err = pgx.ForEachRow(rows, append(memberDest(&m), &gs, &since), func() error {
			ms, groups, marks = append(ms, m), append(groups, gs), append(marks, since)
			gs, since = nil, nil
			return nil
		})
		return err
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("list members: %w", err)
	}
	return ms, groups, marks, nil
}

// memberPageSQL is MemberPage's statement for f and its arguments.
func memberPageSQL(teamID string, f domain.MemberFilter) (string, []any) {
	var b strings.Builder
	args := []any{teamID}
	// The page is chosen in a subquery and the group ids read for its rows
	// only: in one flat SELECT the scan computes the ARRAY for every row
	// that OFFSET then skips (5,000 of them on an average page of a
	// 10,000-member team).
	// The number's undeliverable mark comes in the same row (one probe of
	// roster_undeliverable's key), not from a second statement.
	b.WriteString(`SELECT ` + memberColumns + `,
       ARRAY(SELECT gm.group_id FROM roster_group_members gm WHERE gm.member_id = m.id ORDER BY gm.group_id),
       (SELECT u.since FROM roster_undeliverable u WHERE u.team_id = m.team_id AND u.phone = m.phone)
FROM (SELECT * FROM roster_members m WHERE m.team_id = $1 AND m.deleted_at IS NULL`)
	where := func(cond string, v any) {
		args = append(args, v)
		fmt.Fprintf(&b, " AND "+cond, len(args))
	}
	if f.GroupID != "" {
		where("EXISTS (SELECT 1 FROM roster_group_members gm WHERE gm.member_id = m.id AND gm.group_id = $%d)", f.GroupID)
	}
	if f.Role != "" {
		where("m.role = $%d", f.Role)
	}
	if f.Status != "" {
		where("m.status = $%d", f.Status)
	}
	if f.Phone != "" {
		where("m.phone = $%d", f.Phone)
	}
	if f.Email != "" {
		where("lower(m.email) = lower($%d)", f.Email)
	}
	if f.Staff {
		b.WriteString(" AND (m.dashboard_login OR m.role IN ('head_coach', 'team_director', 'coach', 'board_member'))")
	}
	if f.Search != "" {
		args = append(args, "%"+likeEscaper.Replace(f.Search)+"%")
		n := len(args)
		if digits := searchDigits(f.Search); len(digits) >= 3 {
			args = append(args, "%"+digits+"%")
			fmt.Fprintf(&b, " AND (m.name ILIKE $%d OR m.email ILIKE $%d OR m.phone LIKE $%d)", n, n, n+1)
		} else {
			fmt.Fprintf(&b, " AND (m.name ILIKE $%d OR m.email ILIKE $%d)", n, n)
		}
	}
	order := " ORDER BY m.created_at, m.id"
	if f.NewestFirst {
		order = " ORDER BY m.created_at DESC, m.id DESC"
	}
	args = append(args, f.Limit+1, f.Offset)
	fmt.Fprintf(&b, "%s LIMIT $%d OFFSET $%d) m%s", order, len(args)-1, len(args), order)
	return b.String(), args
}

// likeEscaper escapes LIKE's wildcards in a search text (the escape
// character is Postgres's default, the backslash).
var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)

// searchDigits is the digits of a search text, as a phone number holds them.
func searchDigits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// MembersByPhone returns a team's (not deleted) entries with phone, oldest first.
func (r *Repo) MembersByPhone(ctx context.Context, teamID, phone string) ([]domain.Member, error) {
	return r.membersByPhone(ctx, teamID, phone, "")
}

// LockMembersByPhone is MembersByPhone with the entries' rows locked
// (SELECT ... FOR UPDATE) for the rest of the caller's transaction.
func (r *Repo) LockMembersByPhone(ctx context.Context, teamID, phone string) ([]domain.Member, error) {
	return r.membersByPhone(ctx, teamID, phone, "UPDATE")
}

// membersByPhone is MembersByPhone, with lock as the SELECT's FOR clause ("" for none).
func (r *Repo) membersByPhone(ctx context.Context, teamID, phone, lock string) ([]domain.Member, error) {
	var ms []memberRow
	q := r.db.IDB(ctx).NewSelect().Model(&ms).Where("team_id = ? AND phone = ? AND deleted_at IS NULL", teamID, phone).OrderExpr("created_at, id")
	if lock != "" {
		q = q.For(lock)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("members by phone: %w", err)
	}
	return toDomains[domain.Member](ms), nil
}

// MembersByTeamPhonesSQL reads the live entries of pairs (teams $1[i],
// phones $2[i]): one probe per distinct pair (the lateral subquery, kept
// apart by OFFSET 0) of the expression index on team_id || ' ' || phone,
// as ImportEntriesSQL does, so its cost follows the pairs, not the table.
const MembersByTeamPhonesSQL = `SELECT ` + memberColumns + `
FROM (SELECT DISTINCT * FROM unnest($1::text[], $2::text[])) AS v(team_id, phone)
CROSS JOIN LATERAL (SELECT * FROM roster_members
                    WHERE team_id || ' ' || phone = v.team_id || ' ' || v.phone AND deleted_at IS NULL OFFSET 0) m
ORDER BY m.created_at, m.id`

// MembersByTeamPhones returns the (not deleted) entries of any of the
// pairs (teams[i], phones[i]), oldest first, in one prepared statement.
func (r *Repo) MembersByTeamPhones(ctx context.Context, teams, phones []string) ([]domain.Member, error) {
	var ms []domain.Member
	if len(teams) == 0 {
		return ms, nil
	}
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, MembersByTeamPhonesSQL, teams, phones)
		if err != nil {
			return err
		}
		var m domain.Member
		_, err = pgx.ForEachRow(rows, memberDest(&m), func() error { ms = append(ms, m); return nil })
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("members of %d numbers: %w", len(phones), err)
	}
	return ms, nil
}

// MembersByPhones returns a team's (not deleted) entries with any of phones.
func (r *Repo) MembersByPhones(ctx context.Context, teamID string, phones []string) ([]domain.Member, error) {
	return r.membersByPhones(ctx, teamID, phones, false)
}

// MembersOnRecordByPhones is MembersByPhones with the entries removed from
// the roster but kept on record (opted-out members, spec §3) included.
func (r *Repo) MembersOnRecordByPhones(ctx context.Context, teamID string, phones []string) ([]domain.Member, error) {
	return r.membersByPhones(ctx, teamID, phones, true)
}

func (r *Repo) membersByPhones(ctx context.Context, teamID string, phones []string, removed bool) ([]domain.Member, error) {
	var ms []memberRow
	if len(phones) == 0 {
		return nil, nil
	}
	q := r.db.IDB(ctx).NewSelect().Model(&ms).Where("team_id = ? AND phone IN (?)", teamID, bun.In(phones))
	if !removed {
		q = q.Where("deleted_at IS NULL")
	}
	if err := q.OrderExpr("created_at, id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("members by phones: %w", err)
	}
	return toDomains[domain.Member](ms), nil
}

// LockPhone serialises writes about one number of a team (adds, opt-outs)
// for the rest of the transaction.
func (r *Repo) LockPhone(ctx context.Context, teamID, phone string) error {
	_, err := r.db.IDB(ctx).ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended(? || '|' || ?, 0))`, teamID, phone)
	if err != nil {
		return fmt.Errorf("lock phone: %w", err)
	}
	return nil
}

// DeleteMember removes a member row (and, by its table's trigger, its group
// memberships; by cascade, its values).
func (r *Repo) DeleteMember(ctx context.Context, m *domain.Member) error {
	if _, err := r.db.IDB(ctx).NewDelete().Model(toMemberRow(m)).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("delete member: %w", err)
	}
	return nil
}

// GroupIDs maps member ids to their group ids.
func (r *Repo) GroupIDs(ctx context.Context, memberIDs []string) (map[string][]string, error) {
	out := make(map[string][]string, len(memberIDs))
	if len(memberIDs) == 0 {
		return out, nil
	}
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, GroupIDsSQL, memberIDs)
		if err != nil {
			return err
		}
		var (
			memberID string
			groupIDs []string
		)
		_, err = pgx.ForEachRow(rows, []any{&memberID, &groupIDs}, func() error {
			if len(groupIDs) > 0 {
				out[memberID] = groupIDs
			}
			groupIDs = nil
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("group ids: %w", err)
	}
	return out, nil
}

// GroupIDsSQL reads the group ids of a page's members ($1): per member, an
// index-only scan of (member_id, group_id), whatever the planner thinks of
// the table (a plain member_id = ANY($1) is planned as a sequential scan of
// every membership). pgx prepares it once per connection.
const GroupIDsSQL = `SELECT u.id, ARRAY(SELECT gm.group_id FROM roster_group_members gm WHERE gm.member_id = u.id ORDER BY gm.group_id)
FROM unnest($1::text[]) AS u(id)`

// SetGroups replaces a member's groups.
func (r *Repo) SetGroups(ctx context.Context, teamID, memberID string, groupIDs []string) error {
	if _, err := r.db.IDB(ctx).NewDelete().Table("roster_group_members").Where("member_id = ?", memberID).Exec(ctx); err != nil {
		return fmt.Errorf("clear groups: %w", err)
	}
	for _, g := range groupIDs {
		if err := r.AddToGroup(ctx, teamID, g, memberID); err != nil {
			return err
		}
	}
	return nil
}

// AddToGroupSQL writes a membership ($1 group, $2 member, $3 team) once
// both exist on the team, locking them FOR KEY SHARE until the transaction
// ends, as a foreign-key check would (the table has none: see migration
// 20261125000001): a group or member deleted first makes it write nothing,
// one deleted after waits, then takes the membership with it.
const AddToGroupSQL = `INSERT INTO roster_group_members (group_id, member_id, team_id)
SELECT g.id, m.id, g.team_id FROM roster_groups g, roster_members m
WHERE g.id = $1 AND g.team_id = $3 AND m.id = $2 AND m.team_id = $3
FOR KEY SHARE OF g, m
ON CONFLICT DO NOTHING`

// AddToGroup adds a member to a group (idempotent; nothing when either is
// gone).
func (r *Repo) AddToGroup(ctx context.Context, teamID, groupID, memberID string) error {
	_, err := r.db.SQL(ctx).ExecContext(ctx, AddToGroupSQL, groupID, memberID, teamID)
	if err != nil {
		return fmt.Errorf("add to group: %w", err)
	}
	return nil
}

// JoinGroupsSQL adds every live entry of a team ($1) with a phone ($3)
// to a group ($2), the three arrays read in step, as AddToGroupSQL adds
// one: both rows locked FOR KEY SHARE, nothing for a group or entry gone.
const JoinGroupsSQL = `INSERT INTO roster_group_members (group_id, member_id, team_id)
SELECT g.id, m.id, g.team_id FROM unnest($1::text[], $2::text[], $3::text[]) AS j(team_id, group_id, phone)
JOIN roster_groups g ON g.id = j.group_id AND g.team_id = j.team_id
JOIN roster_members m ON m.team_id = j.team_id AND m.phone = j.phone AND m.deleted_at IS NULL
ORDER BY g.id, m.id
FOR KEY SHARE OF g, m
ON CONFLICT DO NOTHING`

// JoinGroups adds each join's phone's live entries on its team to its
// group, in one statement, and returns how many memberships it added.
func (r *Repo) JoinGroups(ctx context.Context, joins []rosterapi.GroupJoin) (int, error) {
	teams, groups, phones := make([]string, len(joins)), make([]string, len(joins)), make([]string, len(joins))
	for i, j := range joins {
		teams[i], groups[i], phones[i] = j.TeamID, j.GroupID, string(j.Phone)
	}
	res, err := r.db.SQL(ctx).ExecContext(ctx, JoinGroupsSQL, teams, groups, phones)
	if err != nil {
		return 0, fmt.Errorf("join groups: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// RemoveFromGroup removes a member from a group; false if they were not in it.
func (r *Repo) RemoveFromGroup(ctx context.Context, groupID, memberID string) (bool, error) {
	res, err := r.db.IDB(ctx).NewDelete().Table("roster_group_members").Where("group_id = ? AND member_id = ?", groupID, memberID).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("remove from group: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// Groups lists a team's groups by name with member counts, limit+1 rows.
func (r *Repo) Groups(ctx context.Context, teamID string, limit, offset int) ([]domain.Group, error) {
	var gs []groupRow
	err := r.db.IDB(ctx).NewSelect().Model(&gs).
		ColumnExpr("g.*").
		ColumnExpr("(SELECT count(*) FROM roster_group_members gm WHERE gm.group_id = g.id) AS member_count").
		Where("g.team_id = ?", teamID).OrderExpr("lower(g.name), g.id").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list groups: %w", err)
	}
	return toDomains[domain.Group](gs), nil
}

// Group loads one of a team's groups.
func (r *Repo) Group(ctx context.Context, teamID, id string) (*domain.Group, error) {
	g := new(groupRow)
	if err := r.db.IDB(ctx).NewSelect().Model(g).Where("team_id = ? AND id = ?", teamID, id).Scan(ctx); err != nil {
		return nil, notFound(err, "select group")
	}
	out := g.toDomain()
	return &out, nil
}

// CountGroups returns how many of ids are groups of the team.
func (r *Repo) CountGroups(ctx context.Context, teamID string, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	n, err := r.db.IDB(ctx).NewSelect().Model((*groupRow)(nil)).Where("team_id = ? AND id IN (?)", teamID, bun.In(ids)).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count groups: %w", err)
	}
	return int(n), nil
}

// InsertGroup stores a group.
func (r *Repo) InsertGroup(ctx context.Context, g *domain.Group) error {
	if _, err := r.db.IDB(ctx).NewInsert().Model(toGroupRow(g)).Exec(ctx); err != nil {
		return fmt.Errorf("insert group: %w", groupNameTaken(err))
	}
	return nil
}

// UpdateGroup renames a group.
func (r *Repo) UpdateGroup(ctx context.Context, g *domain.Group) error {
	if _, err := r.db.IDB(ctx).NewUpdate().Model(toGroupRow(g)).Column("name").WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("update group: %w", groupNameTaken(err))
	}
	return nil
}

// DeleteGroup deletes a group and (by its table's trigger) its memberships.
func (r *Repo) DeleteGroup(ctx context.Context, g *domain.Group) error {
	if _, err := r.db.IDB(ctx).NewDelete().Model(toGroupRow(g)).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("delete group: %w", err)
	}
	return nil
}

// CustomFields lists a team's fields in creation order.
func (r *Repo) CustomFields(ctx context.Context, teamID string) ([]domain.CustomField, error) {
	var fs []customFieldRow
	if err := r.db.IDB(ctx).NewSelect().Model(&fs).Where("team_id = ?", teamID).OrderExpr("created_at, id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("list custom fields: %w", err)
	}
	return toDomains[domain.CustomField](fs), nil
}

// FieldValues reads the team's members' values of the custom fields keys
// (member id -> key -> value), in one statement.
func (r *Repo) FieldValues(ctx context.Context, teamID string, keys []string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	err := r.db.WithPgx(ctx, func(pq db.PgxQuerier) error {
		rows, err := pq.Query(ctx, `SELECT v.member_id, f.key, v.value FROM roster_custom_fields f
JOIN roster_custom_values v ON v.field_id = f.id WHERE f.team_id = $1 AND f.key = ANY($2::text[])`, teamID, keys)
		if err != nil {
			return err
		}
		var member, key, value string
		_, err = pgx.ForEachRow(rows, []any{&member, &key, &value}, func() error {
			if out[member] == nil {
				out[member] = map[string]string{}
			}
			out[member][key] = value
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("merge field values: %w", err)
	}
	return out, nil
}

// CustomField loads one of a team's fields, locked.
func (r *Repo) CustomField(ctx context.Context, teamID, id string) (*domain.CustomField, error) {
	f := new(customFieldRow)
	if err := r.db.IDB(ctx).NewSelect().Model(f).Where("team_id = ? AND id = ?", teamID, id).For("UPDATE").Scan(ctx); err != nil {
		return nil, notFound(err, "select custom field")
	}
	out := f.toDomain()
	return &out, nil
}

// LockTeam serialises writes that check a per-team count (fields, groups).
func (r *Repo) LockTeam(ctx context.Context, teamID string) error {
	if _, err := r.db.IDB(ctx).ExecContext(ctx, `SELECT 1 FROM roster_teams WHERE id = ? FOR UPDATE`, teamID); err != nil {
		return fmt.Errorf("lock team: %w", err)
	}
	return nil
}

// InsertCustomField stores a field.
func (r *Repo) InsertCustomField(ctx context.Context, f *domain.CustomField) error {
	if _, err := r.db.IDB(ctx).NewInsert().Model(toCustomFieldRow(f)).Exec(ctx); err != nil {
		return fmt.Errorf("insert custom field: %w", err)
	}
	return nil
}

// UpdateCustomField writes label and private.
func (r *Repo) UpdateCustomField(ctx context.Context, f *domain.CustomField) error {
	if _, err := r.db.IDB(ctx).NewUpdate().Model(toCustomFieldRow(f)).Column("label", "private").WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("update custom field: %w", err)
	}
	return nil
}

// DeleteCustomField deletes a field and all its values.
func (r *Repo) DeleteCustomField(ctx context.Context, f *domain.CustomField) error {
	if _, err := r.db.IDB(ctx).NewDelete().Model(toCustomFieldRow(f)).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("delete custom field: %w", err)
	}
	return nil
}

// CustomValues returns a member's values by field id.
func (r *Repo) CustomValues(ctx context.Context, memberID string) (map[string]string, error) {
	var rows []struct {
		FieldID string `bun:"field_id"`
		Value   string `bun:"value"`
	}
	err := r.db.IDB(ctx).NewSelect().Table("roster_custom_values").Column("field_id", "value").Where("member_id = ?", memberID).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("custom values: %w", err)
	}
	out := make(map[string]string, len(rows))
	for _, row := range rows {
		out[row.FieldID] = row.Value
	}
	return out, nil
}

// SetCustomValue writes one value; an empty value deletes it.
func (r *Repo) SetCustomValue(ctx context.Context, memberID, fieldID, value string) error {
	var err error
	if value == "" {
		_, err = r.db.IDB(ctx).NewDelete().Table("roster_custom_values").Where("member_id = ? AND field_id = ?", memberID, fieldID).Exec(ctx)
	} else {
		_, err = r.db.IDB(ctx).ExecContext(ctx, `INSERT INTO roster_custom_values (field_id, member_id, value) VALUES (?, ?, ?)
ON CONFLICT (member_id, field_id) DO UPDATE SET value = EXCLUDED.value`, fieldID, memberID, value)
	}
	if err != nil {
		return fmt.Errorf("set custom value: %w", err)
	}
	return nil
}

// OptOut loads a team's opt-out record for phone, if any.
func (r *Repo) OptOut(ctx context.Context, teamID, phone string) (*domain.OptOut, error) {
	o := new(optOutRow)
	if err := r.db.IDB(ctx).NewSelect().Model(o).Where("team_id = ? AND phone = ?", teamID, phone).Scan(ctx); err != nil {
		return nil, notFound(err, "select opt-out")
	}
	out := o.toDomain()
	return &out, nil
}

// OptedOutAmong returns the (team, phone) pairs among teams[i], phones[i]
// that are opted out, in one statement with bind parameters.
func (r *Repo) OptedOutAmong(ctx context.Context, teams, phones []string) ([][2]string, error) {
	rows, err := r.db.SQL(ctx).QueryContext(ctx, `SELECT o.team_id, o.phone FROM roster_opt_outs o
JOIN unnest($1::text[], $2::text[]) AS v(team_id, phone) ON o.team_id = v.team_id AND o.phone = v.phone`, teams, phones)
	if err != nil {
		return nil, fmt.Errorf("opted out among %d numbers: %w", len(phones), err)
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var p [2]string
		if err := rows.Scan(&p[0], &p[1]); err != nil {
			return nil, fmt.Errorf("opted out among: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// OptedOutPhones returns which of phones are opted out.
func (r *Repo) OptedOutPhones(ctx context.Context, teamID string, phones []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(phones) == 0 {
		return out, nil
	}
	var got []string
	err := r.db.IDB(ctx).NewSelect().Model((*optOutRow)(nil)).Column("phone").Where("team_id = ? AND phone IN (?)", teamID, bun.In(phones)).Scan(ctx, &got)
	if err != nil {
		return nil, fmt.Errorf("opted-out phones: %w", err)
	}
	for _, p := range got {
		out[p] = true
	}
	return out, nil
}

// InsertOptOut records an opt-out; false if it existed already.
func (r *Repo) InsertOptOut(ctx context.Context, o *domain.OptOut) (bool, error) {
	res, err := r.db.IDB(ctx).NewInsert().Model(toOptOutRow(o)).On("CONFLICT DO NOTHING").Exec(ctx)
	return changedOne(res, err, "insert opt-out")
}

// DeleteOptOut removes an opt-out (inbound START); false if there was none.
func (r *Repo) DeleteOptOut(ctx context.Context, teamID, phone string) (bool, error) {
	res, err := r.db.IDB(ctx).NewDelete().Model((*optOutRow)(nil)).Where("team_id = ? AND phone = ?", teamID, phone).Exec(ctx)
	return changedOne(res, err, "delete opt-out")
}

// OptOuts lists a team's opt-outs, newest first, limit+1 rows.
func (r *Repo) OptOuts(ctx context.Context, teamID string, limit, offset int) ([]domain.OptOut, error) {
	var os []optOutRow
	err := r.db.IDB(ctx).NewSelect().Model(&os).Where("team_id = ?", teamID).OrderExpr("created_at DESC, phone").
		Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list opt-outs: %w", err)
	}
	return toDomains[domain.OptOut](os), nil
}

// SetStatusByPhone sets the status of every entry with phone and returns them.
func (r *Repo) SetStatusByPhone(ctx context.Context, teamID, phone, status string, at time.Time) ([]domain.Member, error) {
	var ms []memberRow
	_, err := r.db.IDB(ctx).NewUpdate().Model(&ms).Set("status = ?", status).Set("updated_at = ?", at).
		Where("team_id = ? AND phone = ? AND deleted_at IS NULL AND status <> ?", teamID, phone, status).
		Returning("*").Exec(ctx, &ms)
	if err != nil {
		return nil, fmt.Errorf("set status by phone: %w", err)
	}
	return toDomains[domain.Member](ms), nil
}

// AudienceSQL is a team's ($1) possible recipients; Audience narrows it to
// roles and a group with further bind parameters and orders it. Each of its
// four texts is fixed, so pgx prepares it once per connection.
const AudienceSQL = `SELECT m.id, m.phone, m.name, m.role,
  EXISTS (SELECT 1 FROM roster_undeliverable u WHERE u.team_id = m.team_id AND u.phone = m.phone AND u.since IS NOT NULL)
FROM roster_members AS m
WHERE m.team_id = $1 AND m.deleted_at IS NULL AND m.status = 'active' AND NOT m.is_blocked
  AND NOT EXISTS (SELECT 1 FROM roster_opt_outs o WHERE o.team_id = m.team_id AND o.phone = m.phone)`

// Audience returns the active, unblocked, opted-in members of an audience
// as recipients, one entry per roster row, oldest first. roles empty means
// every role. A broadcast reads the whole team, so only the recipient's
// columns are read, and scanned without reflection, through pgx with bind
// parameters: one of four fixed texts (roles or not, group or not).
func (r *Repo) Audience(ctx context.Context, teamID string, roles []rosterapi.Role, groupID string) ([]rosterapi.Recipient, error) {
	q := AudienceSQL
	args := []any{teamID}
	if len(roles) > 0 {
		rs := make([]string, len(roles))
		for i, role := range roles {
			rs[i] = string(role)
		}
		args = append(args, rs)
		q += fmt.Sprintf(` AND m.role = ANY($%d::text[])`, len(args))
	}
	if groupID != "" {
		args = append(args, groupID)
		q += fmt.Sprintf(` AND EXISTS (SELECT 1 FROM roster_group_members gm WHERE gm.member_id = m.id AND gm.group_id = $%d)`, len(args))
	}
	var out []rosterapi.Recipient
	err := r.db.WithPgx(ctx, func(pq db.PgxQuerier) error {
		rows, err := pq.Query(ctx, q+` ORDER BY m.created_at, m.id`, args...)
		if err != nil {
			return err
		}
		var (
			rc   rosterapi.Recipient
			role string
		)
		_, err = pgx.ForEachRow(rows, []any{&rc.MemberID, &rc.Phone, &rc.Name, &role, &rc.Undeliverable}, func() error {
			rc.Role = rosterapi.Role(role)
			out = append(out, rc)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("audience: %w", err)
	}
	return out, nil
}

// isUniqueViolation reports a unique-constraint error on the named index.
func isUniqueViolation(err error, index string) bool {
	return err != nil && strings.Contains(err.Error(), "23505") && strings.Contains(err.Error(), index)
}

// groupNameTaken maps a unique violation of the team's group names to
// domain.ErrGroupNameTaken (the driver's error kept as text), and passes
// any other error on.
func groupNameTaken(err error) error {
	if isUniqueViolation(err, "roster_groups_team_name") {
		return fmt.Errorf("%w: %v", domain.ErrGroupNameTaken, err)
	}
	return err
}

// lockPhonesSQL is LockPhones' statement, in bun's placeholders: the team
// ($1) and the numbers (an array).
const lockPhonesSQL = `SELECT pg_advisory_xact_lock(hashtextextended(? || '|' || p, 0))
FROM (SELECT DISTINCT unnest(?::text[]) AS p ORDER BY 1) ps`

// LockPhones takes the per-number locks of LockPhone for several numbers,
// in a fixed order so concurrent batches cannot deadlock.
func (r *Repo) LockPhones(ctx context.Context, teamID string, phones []string) error {
	if len(phones) == 0 {
		return nil
	}
	_, err := r.db.IDB(ctx).ExecContext(ctx, lockPhonesSQL, teamID, pgdialect.Array(phones))
	if err != nil {
		return fmt.Errorf("lock phones: %w", err)
	}
	return nil
}

// InsertOptOuts records opt-outs for phones and returns those that were new.
func (r *Repo) InsertOptOuts(ctx context.Context, teamID string, phones []string, source string, at time.Time) (map[string]bool, error) {
	out := map[string]bool{}
	if len(phones) == 0 {
		return out, nil
	}
	var inserted []string
	err := r.db.IDB(ctx).NewRaw(`INSERT INTO roster_opt_outs (team_id, phone, source, created_at)
SELECT ?, p, ?, ? FROM unnest(?::text[]) AS p ON CONFLICT DO NOTHING RETURNING phone`,
		teamID, source, at, pgdialect.Array(phones)).Scan(ctx, &inserted)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("insert opt-outs: %w", err)
	}
	for _, p := range inserted {
		out[p] = true
	}
	return out, nil
}

// SetStatusByPhones sets the status of every entry with one of phones and returns the changed entries.
func (r *Repo) SetStatusByPhones(ctx context.Context, teamID string, phones []string, status string, at time.Time) ([]domain.Member, error) {
	var ms []memberRow
	if len(phones) == 0 {
		return nil, nil
	}
	_, err := r.db.IDB(ctx).NewUpdate().Model(&ms).Set("status = ?", status).Set("updated_at = ?", at).
		Where("team_id = ? AND phone IN (?) AND deleted_at IS NULL AND status <> ?", teamID, bun.In(phones), status).
		Returning("*").Exec(ctx, &ms)
	if err != nil {
		return nil, fmt.Errorf("set status by phones: %w", err)
	}
	return toDomains[domain.Member](ms), nil
}

// TimeZonesSQL is the own time zone of each of a team's ($1) phones ($2)
// that has a live entry with one set: the oldest such entry's, one row per
// phone (probes of the (team_id, phone) index).
const TimeZonesSQL = `SELECT DISTINCT ON (phone) phone, time_zone FROM roster_members
WHERE team_id = $1 AND phone = ANY($2::text[]) AND deleted_at IS NULL AND time_zone <> ''
ORDER BY phone, created_at, id`

// TimeZones returns, for each of phones with a live entry of the team whose
// time_zone is set, that zone (the oldest such entry's), in one statement.
// Phones without one are absent.
func (r *Repo) TimeZones(ctx context.Context, teamID string, phones []string) (map[string]string, error) {
	out := map[string]string{}
	if len(phones) == 0 {
		return out, nil
	}
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, TimeZonesSQL, teamID, phones)
		if err != nil {
			return err
		}
		var phone, zone string
		_, err = pgx.ForEachRow(rows, []any{&phone, &zone}, func() error { out[phone] = zone; return nil })
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("time zones of %d numbers: %w", len(phones), err)
	}
	return out, nil
}
