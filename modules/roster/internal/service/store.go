package service

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
)

// The stores the roster's use cases need, declared here (the consumer's
// side) by use case and implemented by internal/postgres: the service and
// the directory see methods and domain types (domain/store.go: the sentinel
// errors and single-statement read models), not bun rows or driver errors.
// postgres.Repo satisfies every one of them (asserted in module.go). Every
// read that takes an id also takes the team id; every write runs in the
// caller's transaction.

// Stores are the Service's stores, one per use case.
type Stores struct {
	Teams     TeamStore
	Members   MemberStore
	Groups    GroupStore
	Fields    FieldStore
	Imports   ImportStore
	OptOuts   OptOutStore
	Consent   ConsentStore
	Joins     JoinStore
	Directory DirectoryStores
}

// TeamStore keeps teams and their API keys.
type TeamStore interface {
	InsertTeam(ctx context.Context, t *domain.Team) error
	Team(ctx context.Context, id string) (*domain.Team, error)
	UpdateTeam(ctx context.Context, t *domain.Team) error
	// LockTeam serialises a team's changes of its custom fields.
	LockTeam(ctx context.Context, teamID string) error
	InsertKey(ctx context.Context, k *domain.APIKey) error
	// Key reads one of a team's keys, locked.
	Key(ctx context.Context, teamID, id string) (*domain.APIKey, error)
	Keys(ctx context.Context, teamID string, limit, offset int) ([]domain.APIKey, error)
	// KeyAuth runs query, built by KeyAuthSQL, for q (domain.ErrNotFound:
	// no key has q's lookup prefix).
	KeyAuth(ctx context.Context, query string, q domain.KeyAuthQuery) (*domain.KeyAuth, error)
	// KeyAuthSQL builds the gate's one statement around account, billing's
	// sub-select for the key's team: built once, it is the same text for
	// every request and pgx prepares it once per connection.
	KeyAuthSQL(account string) string
	RevokeKey(ctx context.Context, k *domain.APIKey) error
	RevokeMemberKeys(ctx context.Context, teamID, memberID, reason string, at time.Time) ([]domain.APIKey, error)
}

// MemberStore keeps a team's members.
type MemberStore interface {
	InsertMember(ctx context.Context, m *domain.Member) error
	// Member reads a team's (not deleted) member.
	Member(ctx context.Context, teamID, id string) (*domain.Member, error)
	// LockMember reads a team's (not deleted) member, locked for the rest
	// of the caller's transaction.
	LockMember(ctx context.Context, teamID, id string) (*domain.Member, error)
	// UpdateMember locks a team's member, lets change alter it and writes
	// it back (nothing when change fails); it answers the member as written.
	UpdateMember(ctx context.Context, teamID, id string, change func(*domain.Member) error) (*domain.Member, error)
	// WriteMember writes every column of a member read with LockMember.
	WriteMember(ctx context.Context, m *domain.Member) error
	DeleteMember(ctx context.Context, m *domain.Member) error
	// MemberPage returns a page's members, each one's group ids and its
	// number's undeliverable mark (nil: none), in one statement.
	MemberPage(ctx context.Context, teamID string, f domain.MemberFilter) ([]domain.Member, [][]string, []*time.Time, error)
	// MembersByPhone reads a team's (not deleted) entries with phone, oldest first.
	MembersByPhone(ctx context.Context, teamID, phone string) ([]domain.Member, error)
	// LockPhone serialises the changes of a team's number.
	LockPhone(ctx context.Context, teamID, phone string) error
	// LockPhones serialises the changes of a team's numbers.
	LockPhones(ctx context.Context, teamID string, phones []string) error
	GroupIDs(ctx context.Context, memberIDs []string) (map[string][]string, error)
	SetGroups(ctx context.Context, teamID, memberID string, groupIDs []string) error
}

// GroupStore keeps a team's groups and who is in them.
type GroupStore interface {
	Groups(ctx context.Context, teamID string, limit, offset int) ([]domain.Group, error)
	Group(ctx context.Context, teamID, id string) (*domain.Group, error)
	InsertGroup(ctx context.Context, g *domain.Group) error
	UpdateGroup(ctx context.Context, g *domain.Group) error
	DeleteGroup(ctx context.Context, g *domain.Group) error
	CountGroups(ctx context.Context, teamID string, ids []string) (int, error)
	AddToGroup(ctx context.Context, teamID, groupID, memberID string) error
	RemoveFromGroup(ctx context.Context, groupID, memberID string) (bool, error)
}

// FieldStore keeps a team's custom fields and the members' values.
type FieldStore interface {
	CustomField(ctx context.Context, teamID, id string) (*domain.CustomField, error)
	CustomFields(ctx context.Context, teamID string) ([]domain.CustomField, error)
	InsertCustomField(ctx context.Context, f *domain.CustomField) error
	UpdateCustomField(ctx context.Context, f *domain.CustomField) error
	DeleteCustomField(ctx context.Context, f *domain.CustomField) error
	CustomValues(ctx context.Context, memberID string) (map[string]string, error)
	SetCustomValue(ctx context.Context, memberID, fieldID, value string) error
}

// ImportStore keeps CSV imports and writes what they add.
type ImportStore interface {
	InsertImport(ctx context.Context, i *domain.Import) error
	Import(ctx context.Context, teamID, id string) (*domain.Import, error)
	Imports(ctx context.Context, teamID string, limit int) ([]domain.Import, error)
	StartImport(ctx context.Context, id string) (*domain.Import, error)
	ImportProgress(ctx context.Context, id string, done int) error
	FinishImport(ctx context.Context, i *domain.Import, rejectedCSV []byte) error
	RejectedCSV(ctx context.Context, teamID, id string) ([]byte, error)
	ImportState(ctx context.Context, teamID string, phones, groupIDs []string) (*domain.ImportState, error)
	CopyMembers(ctx context.Context, teamID string, ms []domain.Member, groups []domain.Membership, values []domain.CustomValue) error
	// AnalyzeMembers refreshes the planner's statistics of the members
	// and their group memberships (after a large import).
	AnalyzeMembers(ctx context.Context) error
}

// OptOutStore keeps the opt-outs and the numbers' states they set.
type OptOutStore interface {
	InsertOptOut(ctx context.Context, o *domain.OptOut) (bool, error)
	InsertOptOuts(ctx context.Context, teamID string, phones []string, source string, at time.Time) (map[string]bool, error)
	DeleteOptOut(ctx context.Context, teamID, phone string) (bool, error)
	OptOut(ctx context.Context, teamID, phone string) (*domain.OptOut, error)
	OptOuts(ctx context.Context, teamID string, limit, offset int) ([]domain.OptOut, error)
	OptedOutPhones(ctx context.Context, teamID string, phones []string) (map[string]bool, error)
	OptedOutAmong(ctx context.Context, teams, phones []string) ([][2]string, error)
	SetStatusByPhone(ctx context.Context, teamID, phone, status string, at time.Time) ([]domain.Member, error)
	SetStatusByPhones(ctx context.Context, teamID string, phones []string, status string, at time.Time) ([]domain.Member, error)
	// LockMembersByPhone reads a team's (not deleted) entries with phone,
	// oldest first, locked for the rest of the caller's transaction.
	LockMembersByPhone(ctx context.Context, teamID, phone string) ([]domain.Member, error)
	MembersByPhones(ctx context.Context, teamID string, phones []string) ([]domain.Member, error)
	MembersOnRecordByPhones(ctx context.Context, teamID string, phones []string) ([]domain.Member, error)
	UndeliverableSince(ctx context.Context, teamID string, phones []string) (map[string]time.Time, error)
	ClearUndeliverable(ctx context.Context, teamID, phone string) (bool, error)
}

// ConsentStore keeps the numbers' consent history.
type ConsentStore interface {
	InsertConsentEvents(ctx context.Context, events []domain.ConsentEvent) error
	ConsentHistory(ctx context.Context, teamID, phone string, limit, offset int) ([]domain.ConsentEvent, error)
	MembersOnRecordByPhone(ctx context.Context, teamID, phone string) ([]domain.Member, error)
}

// DirectoryStores are what the Directory (the rosterapi read side) reads
// and notes.
type DirectoryStores struct {
	Teams    TeamDirectory
	Members  MemberDirectory
	Groups   GroupDirectory
	Outcomes OutcomeStore
}

// TeamDirectory reads teams for other modules.
type TeamDirectory interface {
	Team(ctx context.Context, id string) (*domain.Team, error)
	TeamByNumber(ctx context.Context, e164 string) (*domain.Team, error)
	TeamsByID(ctx context.Context, ids []string) ([]domain.Team, error)
	TeamsByNumbers(ctx context.Context, e164s []string) ([]domain.Team, error)
	TimeZones(ctx context.Context, teamID string, phones []string) (map[string]string, error)
}

// MemberDirectory reads members, audiences and opt-outs for other modules.
type MemberDirectory interface {
	Audience(ctx context.Context, teamID string, roles []rosterapi.Role, groupID string) ([]rosterapi.Recipient, error)
	Member(ctx context.Context, teamID, id string) (*domain.Member, error)
	MembersByPhone(ctx context.Context, teamID, phone string) ([]domain.Member, error)
	MembersByRole(ctx context.Context, teamID string, roles ...rosterapi.Role) ([]domain.Member, error)
	MembersByTeamPhones(ctx context.Context, teams, phones []string) ([]domain.Member, error)
	OptOut(ctx context.Context, teamID, phone string) (*domain.OptOut, error)
	OptedOutAmong(ctx context.Context, teams, phones []string) ([][2]string, error)
}

// GroupDirectory reads groups and custom fields for other modules.
type GroupDirectory interface {
	Groups(ctx context.Context, teamID string, limit, offset int) ([]domain.Group, error)
	Group(ctx context.Context, teamID, id string) (*domain.Group, error)
	// JoinGroups adds each join's phone's live entries to its group (rosterapi.GroupMembers).
	JoinGroups(ctx context.Context, joins []rosterapi.GroupJoin) (int, error)
	CustomFields(ctx context.Context, teamID string) ([]domain.CustomField, error)
	FieldValues(ctx context.Context, teamID string, keys []string) (map[string]map[string]string, error)
}

// OutcomeStore notes the numbers' delivery outcomes and counts the team's
// statistics.
type OutcomeStore interface {
	NoteFailures(ctx context.Context, fs []domain.Failure, markAfter int) ([]domain.Streak, error)
	ClearStreaks(ctx context.Context, teams, phones []string) error
	CountStats(ctx context.Context, teamID string, from, to time.Time) (newMembers, optOuts int, err error)
}
