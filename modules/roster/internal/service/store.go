package service

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
)

// The stores the roster's use cases need, declared here (the consumer's
// side) and implemented by internal/postgres: the service and the
// directory see methods and domain types (domain/store.go: the sentinel
// errors and single-statement read models), not bun rows or driver errors. postgres.Repo
// satisfies both (asserted in module.go).

// Store is what the Service reads and writes (the Directory's reads
// included). Every read that takes an id also takes the team id; every
// write runs in the caller's transaction.
type Store interface {
	DirectoryStore
	JoinStore
	OptedOutAmong(ctx context.Context, teams, phones []string) ([][2]string, error)
	AddToGroup(ctx context.Context, teamID, groupID, memberID string) error
	ConsentHistory(ctx context.Context, teamID, phone string, limit, offset int) ([]domain.ConsentEvent, error)
	CopyMembers(ctx context.Context, teamID string, ms []domain.Member, groups []domain.Membership, values []domain.CustomValue) error
	// AnalyzeMembers refreshes the planner's statistics of the members
	// and their group memberships (after a large import).
	AnalyzeMembers(ctx context.Context) error
	CountGroups(ctx context.Context, teamID string, ids []string) (int, error)
	CustomField(ctx context.Context, teamID, id string) (*domain.CustomField, error)
	CustomValues(ctx context.Context, memberID string) (map[string]string, error)
	DeleteCustomField(ctx context.Context, f *domain.CustomField) error
	DeleteGroup(ctx context.Context, g *domain.Group) error
	DeleteMember(ctx context.Context, m *domain.Member) error
	DeleteOptOut(ctx context.Context, teamID, phone string) (bool, error)
	GroupIDs(ctx context.Context, memberIDs []string) (map[string][]string, error)
	Groups(ctx context.Context, teamID string, limit, offset int) ([]domain.Group, error)
	InsertImport(ctx context.Context, i *domain.Import) error
	Import(ctx context.Context, teamID, id string) (*domain.Import, error)
	StartImport(ctx context.Context, id string) (*domain.Import, error)
	ImportProgress(ctx context.Context, id string, done int) error
	FinishImport(ctx context.Context, i *domain.Import, rejectedCSV []byte) error
	RejectedCSV(ctx context.Context, teamID, id string) ([]byte, error)
	Imports(ctx context.Context, teamID string, limit int) ([]domain.Import, error)
	ImportState(ctx context.Context, teamID string, phones, groupIDs []string) (*domain.ImportState, error)
	InsertConsentEvents(ctx context.Context, events []domain.ConsentEvent) error
	InsertCustomField(ctx context.Context, f *domain.CustomField) error
	InsertGroup(ctx context.Context, g *domain.Group) error
	InsertKey(ctx context.Context, k *domain.APIKey) error
	InsertMember(ctx context.Context, m *domain.Member) error
	InsertOptOut(ctx context.Context, o *domain.OptOut) (bool, error)
	InsertOptOuts(ctx context.Context, teamID string, phones []string, source string, at time.Time) (map[string]bool, error)
	InsertTeam(ctx context.Context, t *domain.Team) error
	Key(ctx context.Context, teamID, id string) (*domain.APIKey, error)
	// KeyAuth runs query, built by KeyAuthSQL, for q (domain.ErrNotFound:
	// no key has q's lookup prefix).
	KeyAuth(ctx context.Context, query string, q domain.KeyAuthQuery) (*domain.KeyAuth, error)
	// KeyAuthSQL builds the gate's one statement around account, billing's
	// sub-select for the key's team: built once, it is the same text for
	// every request and pgx prepares it once per connection.
	KeyAuthSQL(account string) string
	Keys(ctx context.Context, teamID string, limit, offset int) ([]domain.APIKey, error)
	LockPhone(ctx context.Context, teamID, phone string) error
	LockPhones(ctx context.Context, teamID string, phones []string) error
	LockTeam(ctx context.Context, teamID string) error
	// MemberPage returns a page's members, each one's group ids and its
	// number's undeliverable mark (nil: none), in one statement.
	MemberPage(ctx context.Context, teamID string, f domain.MemberFilter) ([]domain.Member, [][]string, []*time.Time, error)
	MembersByPhones(ctx context.Context, teamID string, phones []string) ([]domain.Member, error)
	MembersOnRecordByPhone(ctx context.Context, teamID, phone string) ([]domain.Member, error)
	MembersOnRecordByPhones(ctx context.Context, teamID string, phones []string) ([]domain.Member, error)
	OptOuts(ctx context.Context, teamID string, limit, offset int) ([]domain.OptOut, error)
	OptedOutPhones(ctx context.Context, teamID string, phones []string) (map[string]bool, error)
	RemoveFromGroup(ctx context.Context, groupID, memberID string) (bool, error)
	RevokeKey(ctx context.Context, k *domain.APIKey) error
	RevokeMemberKeys(ctx context.Context, teamID, memberID, reason string, at time.Time) ([]domain.APIKey, error)
	SetCustomValue(ctx context.Context, memberID, fieldID, value string) error
	SetGroups(ctx context.Context, teamID, memberID string, groupIDs []string) error
	SetStatusByPhone(ctx context.Context, teamID, phone, status string, at time.Time) ([]domain.Member, error)
	SetStatusByPhones(ctx context.Context, teamID string, phones []string, status string, at time.Time) ([]domain.Member, error)
	UndeliverableSince(ctx context.Context, teamID string, phones []string) (map[string]time.Time, error)
	UpdateCustomField(ctx context.Context, f *domain.CustomField) error
	UpdateGroup(ctx context.Context, g *domain.Group) error
	UpdateMember(ctx context.Context, teamID, id string, change func(*domain.Member) error) (*domain.Member, error)
	UpdateTeam(ctx context.Context, t *domain.Team) error
	WriteMember(ctx context.Context, m *domain.Member) error
}

// DirectoryStore is what the Directory (the rosterapi read side) reads.
type DirectoryStore interface {
	Audience(ctx context.Context, teamID string, roles []rosterapi.Role, groupID string) ([]rosterapi.Recipient, error)
	ClearStreaks(ctx context.Context, teams, phones []string) error
	ClearUndeliverable(ctx context.Context, teamID, phone string) (bool, error)
	CountStats(ctx context.Context, teamID string, from, to time.Time) (newMembers, optOuts int, err error)
	CustomFields(ctx context.Context, teamID string) ([]domain.CustomField, error)
	FieldValues(ctx context.Context, teamID string, keys []string) (map[string]map[string]string, error)
	Groups(ctx context.Context, teamID string, limit, offset int) ([]domain.Group, error)
	Group(ctx context.Context, teamID, id string) (*domain.Group, error)
	// JoinGroups adds each join's phone's live entries to its group (rosterapi.GroupMembers).
	JoinGroups(ctx context.Context, joins []rosterapi.GroupJoin) (int, error)
	Member(ctx context.Context, teamID, id string, forUpdate bool) (*domain.Member, error)
	MembersByPhone(ctx context.Context, teamID, phone string, forUpdate bool) ([]domain.Member, error)
	MembersByRole(ctx context.Context, teamID string, roles ...rosterapi.Role) ([]domain.Member, error)
	MembersByTeamPhones(ctx context.Context, teams, phones []string) ([]domain.Member, error)
	NoteFailures(ctx context.Context, fs []domain.Failure, markAfter int) ([]domain.Streak, error)
	OptOut(ctx context.Context, teamID, phone string) (*domain.OptOut, error)
	OptedOutAmong(ctx context.Context, teams, phones []string) ([][2]string, error)
	Team(ctx context.Context, id string) (*domain.Team, error)
	TeamByNumber(ctx context.Context, e164 string) (*domain.Team, error)
	TeamsByID(ctx context.Context, ids []string) ([]domain.Team, error)
	TeamsByNumbers(ctx context.Context, e164s []string) ([]domain.Team, error)
	TimeZones(ctx context.Context, teamID string, phones []string) (map[string]string, error)
}
