package domain

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"math/big"
	"net/mail"
	"strings"
	"time"

	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/phone"
)

// The dashboard's sign-in rules (DASHBOARD.md, "Who signs in").
const (
	// CodeTTL is how long a sign-in code may be used.
	CodeTTL = 10 * time.Minute
	// CodeAttempts is how many wrong codes kill a code.
	CodeAttempts = 5
	// SessionTTL is how long a session lasts without signing in again.
	SessionTTL = 7 * 24 * time.Hour
)

// Identity is who asks to sign in: a phone number in E.164, or an e-mail
// address in lower case.
type Identity struct {
	Value string
	Email bool
}

// ParseIdentity reads what was typed in "Phone or e-mail": an address when
// it holds an @, else a US phone number in any common format.
func ParseIdentity(s string) (Identity, error) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "@") {
		a, err := mail.ParseAddress(s)
		if err != nil || a.Address != s || len(s) > 254 {
			return Identity{}, fault.New(fault.Invalid, fault.CodeInvalidRequest, "enter a phone number or an e-mail address")
		}
		return Identity{Value: strings.ToLower(s), Email: true}, nil
	}
	n, err := phone.Parse(s)
	if err != nil {
		return Identity{}, fault.New(fault.Invalid, fault.CodeInvalidRequest, "enter a phone number or an e-mail address")
	}
	return Identity{Value: string(n)}, nil
}

// SignInCode is a one-time code: only its salted hash is kept.
type SignInCode struct {
	ID        string
	Identity  string
	Salt      []byte
	Hash      []byte
	Attempts  int
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time
}

// NewSignInCode makes a 6-digit code for identity: the code to send, and
// the record that keeps its hash.
func NewSignInCode(id, identity string, now time.Time) (string, SignInCode) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // the platform's entropy source failed: nothing safe to do
	}
	code := fmt.Sprintf("%06d", n.Int64())
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	return code, SignInCode{ID: id, Identity: identity, Salt: salt, Hash: codeHash(salt, code), CreatedAt: now, ExpiresAt: now.Add(CodeTTL)}
}

func codeHash(salt []byte, code string) []byte {
	h := sha256.New()
	h.Write(salt)
	h.Write([]byte(code))
	return h.Sum(nil)
}

// Live reports whether the code may still be tried at now.
func (c *SignInCode) Live(now time.Time) bool {
	return c.UsedAt == nil && c.Attempts < CodeAttempts && now.Before(c.ExpiresAt)
}

// Try checks a typed code against the record, in constant time, and
// records the attempt: a right code is used up, a wrong one counts toward
// CodeAttempts. It reports whether the code was right and still live.
func (c *SignInCode) Try(code string, now time.Time) bool {
	if !c.Live(now) {
		return false
	}
	typed := strings.TrimSpace(code)
	if subtle.ConstantTimeCompare(codeHash(c.Salt, typed), c.Hash) == 1 && len(typed) == 6 {
		c.UsedAt = &now
		return true
	}
	c.Attempts++
	return false
}

// Session is a signed-in person: the roster entry they act as now, among
// the entries of their identity. Only a hash of the cookie's token is kept.
type Session struct {
	ID        string
	TokenHash []byte
	Identity  string
	MemberID  string
	Picked    bool // chosen among several teams (or the only one)
	CSRF      string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// TokenHash is the stored form of a session token.
func TokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// Login is one roster entry a person may act as in the dashboard, with
// its team: what the team switcher lists.
type Login struct {
	Member Member
	Team   Team
}

// CanSignIn reports whether the entry may use the dashboard now: a login,
// not blocked, active, on the roster, in a team neither disabled nor locked.
func (l Login) CanSignIn() bool {
	m := l.Member
	return m.DashboardLogin && !m.IsBlocked && m.Status == "active" && m.DeletedAt == nil && !l.Team.Disabled && !l.Team.Locked
}

// SignInText is the text or e-mail that carries a code.
func SignInText(teamName, code string) string {
	return fmt.Sprintf("%s: your teamtext sign-in code is %s. It expires in 10 minutes. If you did not ask for it, ignore this text.", teamName, code)
}

// ActivityFilter narrows the activity log: one person's entries, one action.
type ActivityFilter struct {
	MemberID, Action string // "" does not filter
	Limit, Offset    int
}

// Activity is one dashboard write in the team's activity log.
type Activity struct {
	ID        string
	TeamID    string
	MemberID  string
	Action    string
	Object    string
	ClientIP  string
	CreatedAt time.Time
	// MemberName is the actor's roster name as it is now (listing only;
	// "" when the entry was deleted).
	MemberName string
}

// InviteText is the text that invites a new staff member to the dashboard.
func InviteText(teamName, name, link string) string {
	return fmt.Sprintf("%s: %s, you're invited to the team's teamtext dashboard. Sign in with this number at %s", teamName, name, link)
}
