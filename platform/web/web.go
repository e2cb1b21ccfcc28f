// Package web is the staff dashboard's shell (DASHBOARD.md): the layout,
// sessions as the roster resolves them, CSRF, security headers, embedded
// assets with content-hashed names, and the page registry with the nav.
// The pages themselves live in each module's internal/web adapter and call
// the same use cases as the admin API; the shell holds no business rule.
package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"sort"
	"strings"
)

// Prefix is where the dashboard lives on the public listener.
const Prefix = "/app/"

// Permission is one row of the dashboard's role table. Its values are the
// roster's (rosterapi.Permission); the shell only asks the viewer.
type Permission int

// TeamChoice is a team the signed-in person may pick.
type TeamChoice struct {
	ID, Name string
}

// Viewer is the person behind a request: their session, the roster entry
// they act as, its team, and the other teams they are on.
type Viewer struct {
	SessionID string // the session row's id (not the cookie's secret)
	CSRF      string // the token every POST of the session carries
	MemberID  string
	Name      string
	TeamID    string
	TeamName  string
	TimeZone  string
	// Teams are every team the person may sign in to, this one included,
	// by name; more than one shows the team switcher.
	Teams []TeamChoice
	// Picked is false until the person has chosen among several teams.
	Picked bool
	may    func(Permission) bool
}

// NewViewer is a viewer whose permissions are answered by may.
func NewViewer(v Viewer, may func(Permission) bool) *Viewer {
	v.may = may
	return &v
}

// May reports whether the viewer may do p.
func (v *Viewer) May(p Permission) bool { return v != nil && v.may != nil && v.may(p) }

// ErrSignedOut is Sessions' answer for a token with no live session: never
// made, signed out, expired, or ended because the person was blocked, lost
// their login or roster entry, or their team was disabled or locked.
var ErrSignedOut = errors.New("web: signed out")

// Sessions resolves the session cookie's token to its viewer, reading the
// person's roster entry and team afresh on every request, so that a block
// or a role change takes effect on the next one.
type Sessions interface {
	Resolve(ctx context.Context, token string) (*Viewer, error)
}

// Activity is one dashboard write: who did what to which object, from
// which client address.
type Activity struct {
	TeamID   string
	MemberID string
	Action   string // "sent message", "approved message", ...
	Object   string // the id acted on
	ClientIP string
}

// ActivityLog records dashboard writes, in the caller's transaction.
type ActivityLog interface {
	Record(ctx context.Context, a Activity) error
}

// Transactor runs fn in one transaction carried by ctx (*db.DB): a page's
// write and its activity record commit together.
type Transactor interface {
	Tx(ctx context.Context, fn func(ctx context.Context) error) error
}

// NavItem is a link of the nav: shown to those who may use its page.
type NavItem struct {
	Name  string
	Path  string
	Order int
	Perm  Permission
}

// Options configure the shell.
type Options struct {
	// Secure marks cookies Secure (PUBLIC_BASE_URL is https).
	Secure bool
	// ClientIP is the client's address of a request (behind trusted proxies).
	ClientIP func(r *http.Request) netip.Addr
	Log      *slog.Logger
}

// Shell serves every dashboard page under Prefix.
type Shell struct {
	mux      *http.ServeMux
	sessions Sessions
	activity ActivityLog
	tx       Transactor
	opts     Options
	nav      []NavItem
	layout   *layout
}

// New builds the shell. Modules add their pages with Page and Public.
func New(sessions Sessions, activity ActivityLog, tx Transactor, o Options) (*Shell, error) {
	l, err := newLayout()
	if err != nil {
		return nil, err
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	s := &Shell{mux: http.NewServeMux(), sessions: sessions, activity: activity, tx: tx, opts: o, layout: l}
	s.mux.Handle("GET "+Prefix+"assets/", l.assets)
	s.mux.HandleFunc(Prefix, func(w http.ResponseWriter, r *http.Request) {
		s.Error(w, r, http.StatusNotFound, "There is no such page.")
	})
	return s, nil
}

// ServeHTTP serves the dashboard: security headers on every answer.
func (s *Shell) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self'; form-action 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	s.mux.ServeHTTP(w, r)
}

// Nav adds a nav link.
func (s *Shell) Nav(items ...NavItem) {
	s.nav = append(s.nav, items...)
	sort.SliceStable(s.nav, func(i, j int) bool { return s.nav[i].Order < s.nav[j].Order })
}

// navFor is the nav a viewer sees.
func (s *Shell) navFor(v *Viewer) []NavItem {
	var out []NavItem
	for _, n := range s.nav {
		if v.May(n.Perm) {
			out = append(out, n)
		}
	}
	return out
}

// ClientIP is the request's client address as text ("" if unknown).
func (s *Shell) ClientIP(r *http.Request) string {
	if s.opts.ClientIP != nil {
		if a := s.opts.ClientIP(r); a.IsValid() {
			return a.String()
		}
	}
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		return ap.Addr().Unmap().String()
	}
	return strings.Split(r.RemoteAddr, ":")[0]
}

// Do runs a page's write fn and records it in the activity log in one
// transaction: the write and its record commit or roll back together.
// fn returns the id of the object acted on.
func (s *Shell) Do(ctx context.Context, r *http.Request, v *Viewer, action string, fn func(ctx context.Context) (string, error)) error {
	return s.tx.Tx(ctx, func(ctx context.Context) error {
		obj, err := fn(ctx)
		if err != nil {
			return err
		}
		return s.activity.Record(ctx, Activity{TeamID: v.TeamID, MemberID: v.MemberID, Action: action, Object: obj, ClientIP: s.ClientIP(r)})
	})
}
