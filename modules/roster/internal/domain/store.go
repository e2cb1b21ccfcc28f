package domain

import (
	"errors"
	"time"

	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/ratelimit"
)

// What the roster's stores hand the service besides its aggregates: the
// errors the service tells apart, and the read models of single
// statements (the gate's key check, an import chunk's state, a number's
// delivery streak). internal/postgres maps its rows and driver errors to
// these; the service never sees a row or a driver error code.

var (
	// ErrNotFound means no row matched (for this team).
	ErrNotFound = errors.New("roster: not found")
	// ErrGroupNameTaken means the team already has a group of that name
	// (the unique index on the team's group names).
	ErrGroupNameTaken = errors.New("roster: group name taken")
)

// KeyAuth is what authenticating a key needs, in one round trip: the key,
// its team, its creator and the team's billing account.
type KeyAuth struct {
	KeyID       string
	Hash        []byte
	RevokedAt   *time.Time
	TeamID      string
	TeamCode    string
	TeamName    string
	TeamNumber  string
	TimeZone    string
	Disabled    bool
	Locked      bool
	MemberID    string
	Blocked     bool
	Role        string
	CanBroadcst bool
	MemberGone  bool
	// The team's billing account, through billing's sub-select; nil fields
	// when the team has none.
	Plan         *string
	CardOnFile   *bool
	PaymentState *string
	Trial        *bool
	TrialCredits *int32
	// Limit is the request limit's decision, when the statement checked it
	// (KeyAuthQuery: only for a key that may act); nil otherwise.
	Limit *ratelimit.Decision
}

// KeyAuthQuery is what the gate's statement is asked: a key, and the limit
// it counts the request against when the key may act on the operation.
type KeyAuthQuery struct {
	Lookup   string   // the key's lookup prefix
	Hash     []byte   // the presented key's hash
	Bucket   string   // the limit's bucket prefix; the key's id follows it
	APIPlans []string // the plans that may act; nil: any plan
	NeedCard bool     // the operation needs a card on file
	Limit    ratelimit.Check
}

// ImportEntry is what the add rules need of a member already on the roster.
type ImportEntry struct {
	ID             string
	Name           string
	Role           rosterapi.Role
	DashboardLogin bool
}

// ImportState is what a chunk of an import needs to know before it writes,
// read in three statements whatever the chunk's size: which of its phones
// opted out, the entries already on the roster with its phones (per phone,
// oldest first), and which of the groups it names still exist.
type ImportState struct {
	OptedOut map[string]bool
	Entries  map[string][]ImportEntry
	Groups   map[string]bool
}

// Membership is one member in one group.
type Membership struct{ GroupID, MemberID string }

// CustomValue is one member's value of one custom field.
type CustomValue struct{ FieldID, MemberID, Value string }

// Failure is a number's permanent delivery failures to add to its streak.
type Failure struct {
	TeamID, Phone string
	Failures      int
	LastCode      string
	At            time.Time
}

// Streak is a number's delivery-failure streak as written: its failures
// and, once marked undeliverable, since when.
type Streak struct {
	TeamID, Phone string
	Failures      int
	Since         *time.Time
}
