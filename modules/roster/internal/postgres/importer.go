package postgres

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/platform/db"
)

// ImportEntriesSQL reads the live entries of a team ($1) with any of
// phones ($2): one probe per phone (the lateral subquery, kept apart by
// OFFSET 0, runs for each phone with it as a parameter) of the expression
// index on team_id || ' ' || phone, the only index that can serve that
// expression. With team_id = $1 AND phone = p.phone instead, a generic plan
// over stale statistics took the (team_id, lower(email)) index and filtered
// every member of the team for each phone: the import slowed down as the
// team grew.
const ImportEntriesSQL = `SELECT p.phone, m.id, m.name, m.role, m.dashboard_login, m.created_at
FROM unnest($2::text[]) AS p(phone)
CROSS JOIN LATERAL (SELECT id, name, role, dashboard_login, created_at FROM roster_members
                    WHERE team_id || ' ' || phone = $1 || ' ' || p.phone AND deleted_at IS NULL OFFSET 0) m`

// importPlanSQL, importOptOutsSQL and importGroupsSQL are ImportState's
// other statements: its plan setting; which of phones ($2) the team ($1)
// has opted out; which of the groups ($2) are the team's, locked against
// their deletion until the chunk commits.
const (
	importPlanSQL    = `SET LOCAL enable_seqscan = off`
	importOptOutsSQL = `SELECT p.phone FROM unnest($2::text[]) AS p(phone)
WHERE EXISTS (SELECT 1 FROM roster_opt_outs o WHERE o.team_id = $1 AND o.phone = p.phone)`
	importGroupsSQL = `SELECT id FROM roster_groups WHERE team_id = $1 AND id = ANY($2::text[]) FOR KEY SHARE`
)

// ImportState reads a chunk's state for phones and groupIDs. Call it in the
// chunk's transaction after LockPhones, so that it cannot go stale; it
// turns sequential scans off for the rest of that transaction.
func (r *Repo) ImportState(ctx context.Context, teamID string, phones, groupIDs []string) (*domain.ImportState, error) {
	st := &domain.ImportState{OptedOut: map[string]bool{}, Entries: map[string][]domain.ImportEntry{}, Groups: map[string]bool{}}
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		// A chunk's reads look up thousands of phones. While the statistics
		// still describe a smaller table, or once pgx's prepared statement
		// gets a generic plan, the planner may prefer a sequential scan that
		// compares every row with every phone: the import slowed down with
		// every chunk (0.6 s a chunk after 10,000 members). Each lookup is an
		// index probe, so the chunk's transaction forbids the scan.
		if _, err := q.Exec(ctx, importPlanSQL); err != nil {
			return fmt.Errorf("plan settings: %w", err)
		}
		rows, err := q.Query(ctx, importOptOutsSQL, teamID, phones)
		if err != nil {
			return fmt.Errorf("opt-outs: %w", err)
		}
		var phone string
		if _, err := pgx.ForEachRow(rows, []any{&phone}, func() error { st.OptedOut[phone] = true; return nil }); err != nil {
			return fmt.Errorf("opt-outs: %w", err)
		}
		// One probe per phone of the index on team_id || ' ' || phone (see
		// ImportEntriesSQL).
		rows, err = q.Query(ctx, ImportEntriesSQL, teamID, phones)
		if err != nil {
			return fmt.Errorf("entries: %w", err)
		}
		var (
			e       domain.ImportEntry
			created time.Time
		)
		at := map[string]time.Time{}
		if _, err := pgx.ForEachRow(rows, []any{&phone, &e.ID, &e.Name, &e.Role, &e.DashboardLogin, &created}, func() error {
			st.Entries[phone] = append(st.Entries[phone], e)
			at[e.ID] = created
			return nil
		}); err != nil {
			return fmt.Errorf("entries: %w", err)
		}
		for _, es := range st.Entries { // oldest first, as a single add meets them
			sort.Slice(es, func(i, j int) bool {
				if a, b := at[es[i].ID], at[es[j].ID]; !a.Equal(b) {
					return a.Before(b)
				}
				return es[i].ID < es[j].ID
			})
		}
		if len(groupIDs) == 0 {
			return nil
		}
		// The chunk's memberships have no foreign-key check (migration
		// 20261125000001): its groups are locked here, once, as the
		// check would have locked them per row, so that a group deleted
		// meanwhile either is gone now (its rows fail invalid_group) or
		// waits for this chunk's commit and takes its memberships with it.
		rows, err = q.Query(ctx, importGroupsSQL, teamID, groupIDs)
		if err != nil {
			return fmt.Errorf("groups: %w", err)
		}
		var id string
		if _, err := pgx.ForEachRow(rows, []any{&id}, func() error { st.Groups[id] = true; return nil }); err != nil {
			return fmt.Errorf("groups: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("import state: %w", err)
	}
	return st, nil
}

// AnalyzeMembers refreshes the planner's statistics of the members and
// their group memberships.
func (r *Repo) AnalyzeMembers(ctx context.Context) error {
	if _, err := r.db.IDB(ctx).ExecContext(ctx, `ANALYZE roster_members, roster_group_members`); err != nil {
		return fmt.Errorf("analyze roster_members: %w", err)
	}
	return nil
}

// memberCopyColumns are CopyMembers' columns of roster_members, in the
// order memberCopyValues fills a row.
var memberCopyColumns = []string{"id", "team_id", "name", "phone", "email", "role", "status", "is_blocked", "dashboard_login", "can_send_broadcasts", "created_at", "updated_at",
	"consent_source", "consent_at", "consent_evidence", "time_zone"}

// membershipCopyColumns are CopyMembers' columns of roster_group_members.
var membershipCopyColumns = []string{"group_id", "member_id", "team_id"}

func memberCopyValues(row []any, m *domain.Member) {
	row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9], row[10], row[11], row[12], row[13], row[14] = m.ID, m.TeamID, m.Name, m.Phone, m.Email, string(m.Role), m.Status, m.IsBlocked, m.DashboardLogin, m.CanSendBroadcasts, m.CreatedAt, m.UpdatedAt,
		m.ConsentSource, m.ConsentAt, m.ConsentEvidence
	row[15] = m.TimeZone
}

// CopyMembers writes new members, their groups and their custom values with
// COPY, one statement each, in the caller's transaction; every COPY fills
// one row buffer (db.CopyRows).
func (r *Repo) CopyMembers(ctx context.Context, teamID string, ms []domain.Member, groups []domain.Membership, values []domain.CustomValue) error {
	return db.PgxTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"roster_members"}, memberCopyColumns,
			db.CopyRows(len(ms), len(memberCopyColumns), func(row []any, i int) { memberCopyValues(row, &ms[i]) })); err != nil {
			return fmt.Errorf("copy members: %w", err)
		}
		if len(groups) > 0 {
			var team any = teamID // boxed once for every row
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"roster_group_members"}, membershipCopyColumns,
				db.CopyRows(len(groups), 3, func(row []any, i int) {
					row[0], row[1], row[2] = groups[i].GroupID, groups[i].MemberID, team
				})); err != nil {
				return fmt.Errorf("copy group members: %w", err)
			}
		}
		if len(values) > 0 {
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"roster_custom_values"}, []string{"field_id", "member_id", "value"},
				db.CopyRows(len(values), 3, func(row []any, i int) {
					row[0], row[1], row[2] = values[i].FieldID, values[i].MemberID, values[i].Value
				})); err != nil {
				return fmt.Errorf("copy custom values: %w", err)
			}
		}
		return nil
	})
}
