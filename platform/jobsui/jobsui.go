// Package jobsui serves River's web UI (riverqueue.com/riverui) on the
// admin listener, behind the admin token, and read-only unless the
// operator allows actions (RIVER_UI_ACTIONS).
//
// A request is let in by either of:
//   - the header Authorization: Bearer <ADMIN_TOKEN>, as every admin route
//     (a script, or a browser behind a proxy that adds the header);
//   - the cookie the sign-in form (<prefix>/sign-in) sets once the admin
//     token was typed into it: <expiry>.<HMAC-SHA256 keyed by the token>,
//     HttpOnly, SameSite=Strict, scoped to the UI's path, valid for
//     CookieLifetime. It holds no secret, and changing ADMIN_TOKEN voids it.
//
// Anything else is 401 with the admin error envelope. With actions off,
// the UI's mutating calls (cancel, retry, delete, queue pause, resume and
// update: every one a POST, PUT or PATCH under <prefix>/api/) are refused
// with 403 before riverui sees them; riverui has no read-only option.
package jobsui

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"riverqueue.com/riverui"

	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// Prefix is where the UI is mounted on the admin listener.
const Prefix = "/admin/river"

// SignInPattern is the sign-in form's POST route (a form body: the admin
// listener's edge must accept application/x-www-form-urlencoded for it).
const SignInPattern = "POST " + Prefix + "/sign-in"

// CookieName names the sign-in cookie.
const CookieName = "teamtext_river_ui"

// CookieLifetime is how long a sign-in lasts.
const CookieLifetime = 12 * time.Hour

// Options configure the UI.
type Options struct {
	// Token is the admin token (ADMIN_TOKEN).
	Token string
	// Actions lets the UI change jobs and queues (RIVER_UI_ACTIONS).
	Actions bool
	// Clock dates sign-ins; the app passes the wall clock (a sign-in
	// lasts real hours whatever CLOCK is).
	Clock clock.Clock
	Log   *slog.Logger
}

// UI is the mounted River UI.
type UI struct {
	o      Options
	inner  *riverui.Handler
	key    []byte // the cookie's HMAC key, derived from the token
	mu     sync.Mutex
	cancel context.CancelFunc
}

// New builds the UI over River's client (the worker client: its driver
// reads the jobs, and with actions on it cancels and retries them).
func New(client *river.Client[pgx.Tx], o Options) (*UI, error) {
	if len(o.Token) == 0 {
		return nil, errors.New("river ui: the admin token is required")
	}
	h, err := riverui.NewHandler(&riverui.HandlerOpts{
		Endpoints: riverui.NewEndpoints(client, nil),
		// Job args can hold phone numbers (carrier statuses): the list
		// hides them until asked, a job's page shows them to the token holder.
		JobListHideArgsByDefault: true,
		Logger:                   o.Log,
		Prefix:                   Prefix,
	})
	if err != nil {
		return nil, fmt.Errorf("river ui: %w", err)
	}
	key := sha256.Sum256([]byte("teamtext river ui cookie\x00" + o.Token))
	return &UI{o: o, inner: h, key: key[:]}, nil
}

// Start starts riverui's background services (its query caches); they
// run until Stop, not until the start context ends.
func (u *UI) Start(ctx context.Context) error {
	run, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if err := u.inner.Start(run); err != nil {
		cancel()
		return fmt.Errorf("start river ui: %w", err)
	}
	u.mu.Lock()
	u.cancel = cancel
	u.mu.Unlock()
	return nil
}

// Stop stops riverui's background services.
func (u *UI) Stop(context.Context) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.cancel != nil {
		u.cancel()
	}
	return nil
}

// Mount registers the sign-in form and the UI on the admin mux.
func (u *UI) Mount(mux *http.ServeMux) {
	mux.HandleFunc("GET "+Prefix+"/sign-in", u.signInForm)
	mux.HandleFunc(SignInPattern, u.signIn)
	mux.Handle(Prefix+"/", u)
}

// ServeHTTP checks the caller and the method, then hands over to riverui.
func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !u.authorized(r) {
		httpapi.WriteError(w, r, httpapi.FromFault(fault.New(fault.Unauthorized, auth.CodeUnauthorized,
			"send the header Authorization: Bearer followed by the admin token, or sign in at "+Prefix+"/sign-in")))
		return
	}
	if !u.o.Actions && r.Method != http.MethodGet && r.Method != http.MethodHead {
		httpapi.WriteError(w, r, httpapi.FromFault(fault.New(fault.Forbidden, fault.CodeForbidden,
			"the River UI is read-only: set RIVER_UI_ACTIONS=true to cancel, retry or delete jobs and pause or resume queues")))
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	u.inner.ServeHTTP(w, r)
}

// authorized: the bearer token, or a sign-in cookie that is still valid.
func (u *UI) authorized(r *http.Request) bool {
	if h := r.Header.Get("Authorization"); h != "" {
		return strings.HasPrefix(h, "Bearer ") && u.tokenMatches(strings.TrimPrefix(h, "Bearer "))
	}
	c, err := r.Cookie(CookieName)
	if err != nil {
		return false
	}
	exp, sig, ok := strings.Cut(c.Value, ".")
	if !ok {
		return false
	}
	unix, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || !u.o.Clock.Now().Before(time.Unix(unix, 0)) {
		return false
	}
	got, err := hex.DecodeString(sig)
	return err == nil && hmac.Equal(got, u.sign(exp))
}

func (u *UI) tokenMatches(s string) bool {
	got, want := sha256.Sum256([]byte(s)), sha256.Sum256([]byte(u.o.Token))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

func (u *UI) sign(exp string) []byte {
	m := hmac.New(sha256.New, u.key)
	m.Write([]byte("river-ui-session:" + exp))
	return m.Sum(nil)
}

var signInPage = template.Must(template.New("sign-in").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>River UI: sign in</title></head>
<body><main>
<h1>River UI</h1>
{{if .Failed}}<p role="alert">That is not the admin token.</p>{{end}}
<form method="post" action="{{.Action}}">
<label for="token">Admin token (ADMIN_TOKEN)</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button>
</form>
<p>Signing in sets a cookie for this path, valid for 12 hours.</p>
</main></body></html>
`))

type signInData struct {
	Action string
	Failed bool
}

func (u *UI) signInForm(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	_ = signInPage.Execute(w, signInData{Action: Prefix + "/sign-in"})
}

// signIn checks the typed token and sets the cookie; a wrong one gets the
// form again with 401.
func (u *UI) signIn(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if !u.tokenMatches(r.PostFormValue("token")) {
		u.o.Log.Warn("river ui sign-in with a wrong admin token", "client_ip", r.RemoteAddr)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("X-Frame-Options", "DENY")
		w.WriteHeader(http.StatusUnauthorized)
		_ = signInPage.Execute(w, signInData{Action: Prefix + "/sign-in", Failed: true})
		return
	}
	exp := strconv.FormatInt(u.o.Clock.Now().Add(CookieLifetime).Unix(), 10)
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: exp + "." + hex.EncodeToString(u.sign(exp)),
		Path: Prefix + "/", MaxAge: int(CookieLifetime.Seconds()), HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https"})
	http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
}
