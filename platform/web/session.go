package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"time"
)

// SessionCookie holds the session's random token; the row is in Postgres.
const SessionCookie = "tt_session"

// formCookie is the double-submit CSRF token of the forms shown before a
// session exists (sign-in): the form's hidden field must match it.
const formCookie = "tt_form"

// csrfField is the hidden field every POST form carries.
const csrfField = "csrf"

type viewerKey struct{}

// ViewerFrom returns the signed-in viewer of a page's request.
func ViewerFrom(ctx context.Context) *Viewer {
	v, _ := ctx.Value(viewerKey{}).(*Viewer)
	return v
}

// Token is a new random token for cookies and CSRF fields (32 bytes, URL-safe).
func Token() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// SetSession sets the session cookie after sign-in: HttpOnly, SameSite=Lax,
// Path=/app, Secure when the service is reached over https.
func (s *Shell) SetSession(w http.ResponseWriter, token string, expires time.Time) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: token, Path: "/app", Expires: expires, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: s.opts.Secure})
}

// ClearSession removes the session cookie.
func (s *Shell) ClearSession(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/app", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: s.opts.Secure})
}

// SessionToken is the request's session cookie, or "".
func SessionToken(r *http.Request) string {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return ""
	}
	return c.Value
}

// Page registers a signed-in page: the viewer is resolved from the session
// (signed out: GET goes to the sign-in page with 303, anything else gets
// 403), a POST must carry the session's CSRF token (else 403, nothing
// changed), and a viewer without perm gets 403. perm 0 is any signed-in
// person.
func (s *Shell) Page(pattern string, perm Permission, h func(w http.ResponseWriter, r *http.Request, v *Viewer)) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		noStore(w)
		v, err := s.viewer(r)
		if errors.Is(err, ErrSignedOut) {
			s.ClearSession(w)
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				http.Redirect(w, r, Prefix+"sign-in", http.StatusSeeOther)
				return
			}
			s.Error(w, r, http.StatusForbidden, "You are signed out. Sign in again.")
			return
		}
		if err != nil {
			s.Fail(w, r, err)
			return
		}
		if r.Method == http.MethodPost && !sameToken(r.PostFormValue(csrfField), v.CSRF) {
			s.Error(w, r, http.StatusForbidden, "This form has expired. Go back, reload the page and try again.")
			return
		}
		if perm != 0 && !v.May(perm) {
			s.render(w, r, v, http.StatusForbidden, s.layout.errorPage, "Not allowed", "Your role may not use this page.")
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), viewerKey{}, v)), v)
	})
}

// Public registers a page shown without a session (sign-in, sign-up). Its
// forms carry a double-submit token: a POST whose field does not match the
// form cookie gets 403 and changes nothing.
func (s *Shell) Public(pattern string, h http.HandlerFunc) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		noStore(w)
		if r.Method == http.MethodPost {
			c, err := r.Cookie(formCookie)
			if err != nil || !sameToken(r.PostFormValue(csrfField), c.Value) {
				s.Error(w, r, http.StatusForbidden, "This form has expired. Go back, reload the page and try again.")
				return
			}
		}
		h(w, r)
	})
}

// formToken is the form cookie's token, set when missing.
func (s *Shell) formToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(formCookie); err == nil && len(c.Value) >= 32 {
		return c.Value
	}
	t := Token()
	http.SetCookie(w, &http.Cookie{Name: formCookie, Value: t, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.opts.Secure})
	return t
}

// viewer resolves the request's session.
func (s *Shell) viewer(r *http.Request) (*Viewer, error) {
	tok := SessionToken(r)
	if tok == "" {
		return nil, ErrSignedOut
	}
	return s.sessions.Resolve(r.Context(), tok)
}

// OptionalViewer is the request's viewer when signed in, else nil.
func (s *Shell) OptionalViewer(r *http.Request) *Viewer {
	v, err := s.viewer(r)
	if err != nil {
		return nil
	}
	return v
}

func sameToken(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

func noStore(w http.ResponseWriter) { w.Header().Set("Cache-Control", "no-store") }
