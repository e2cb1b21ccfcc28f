package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/httpapi"
	"github.com/teamtext/teamtext/platform/phone"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// layout is the parsed layout and the assets under their hashed names.
type layout struct {
	base      *template.Template
	errorPage *Template
	hashed    map[string]string // "app.css" -> "/app/assets/app.3f2a9c1b.css"
	assets    http.Handler
}

// Template is one page: the layout with the page's "content" block.
type Template struct{ t *template.Template }

func newLayout() (*layout, error) {
	l := &layout{hashed: map[string]string{}}
	files := map[string][]byte{}
	err := fs.WalkDir(assetFS, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := assetFS.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		name := path.Base(p)
		ext := path.Ext(name)
		hashedName := strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:4]) + ext
		l.hashed[name] = Prefix + "assets/" + hashedName
		files[hashedName] = b
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("web assets: %w", err)
	}
	l.assets = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, Prefix+"assets/")
		b, ok := files[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
	})
	l.base, err = template.New("layout.html").Funcs(l.funcs()).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("web layout: %w", err)
	}
	if l.errorPage, err = l.page(templateFS, "templates/error.html"); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *layout) funcs() template.FuncMap {
	return template.FuncMap{
		"asset": func(name string) string { return l.hashed[name] },
		"plural": func(n int, one, many string) string {
			if n == 1 {
				return one
			}
			return many
		},
		"mask": phone.Mask, // a phone number as ***NNNN: pages never show a whole number
		"localTime": func(t time.Time, zone string) string {
			if loc, err := time.LoadLocation(zone); err == nil {
				t = t.In(loc)
			}
			return t.Format("Mon Jan 2, 3:04 PM")
		},
	}
}

func (l *layout) page(fsys fs.FS, name string, parts ...string) (*Template, error) {
	t, err := template.Must(l.base.Clone()).ParseFS(fsys, append([]string{name}, parts...)...)
	if err != nil {
		return nil, fmt.Errorf("web page %s: %w", name, err)
	}
	return &Template{t: t}, nil
}

// Template parses a module's page (a file defining "content") into a copy
// of the layout, with parts: files of blocks its pages share.
func (s *Shell) Template(fsys fs.FS, name string, parts ...string) (*Template, error) {
	return s.layout.page(fsys, name, parts...)
}

// view is what the layout renders.
type view struct {
	Title  string
	Viewer *Viewer
	Nav    []NavItem
	Path   string
	CSRF   string
	Data   any
}

// Render writes a page with status: the layout around tpl's content.
func (s *Shell) Render(w http.ResponseWriter, r *http.Request, tpl *Template, status int, title string, data any) {
	s.render(w, r, ViewerFrom(r.Context()), status, tpl, title, data)
}

// RenderPublic writes a page shown without a session; its forms carry the
// form cookie's token as CSRF.
func (s *Shell) RenderPublic(w http.ResponseWriter, r *http.Request, tpl *Template, status int, title string, data any) {
	v := &view{Title: title, Path: r.URL.Path, CSRF: s.formToken(w, r), Data: data}
	s.write(w, r, tpl, status, v)
}

func (s *Shell) render(w http.ResponseWriter, r *http.Request, v *Viewer, status int, tpl *Template, title string, data any) {
	vw := &view{Title: title, Viewer: v, Path: r.URL.Path, Data: data}
	if v != nil {
		vw.Nav, vw.CSRF = s.navFor(v), v.CSRF
	} else {
		vw.CSRF = s.formToken(w, r)
	}
	s.write(w, r, tpl, status, vw)
}

func (s *Shell) write(w http.ResponseWriter, r *http.Request, tpl *Template, status int, v *view) {
	var buf bytes.Buffer
	if err := tpl.t.ExecuteTemplate(&buf, "layout.html", v); err != nil {
		s.opts.Log.Error("dashboard page failed to render", "path", r.URL.Path, "err", err)
		http.Error(w, "the page could not be shown", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// Error writes the error page with status and a message for people.
func (s *Shell) Error(w http.ResponseWriter, r *http.Request, status int, msg string) {
	s.render(w, r, ViewerFrom(r.Context()), status, s.layout.errorPage, http.StatusText(status), msg)
}

// Fail writes the error page for a use case's error: a fault's status and
// message, and for anything else 500 with no detail (logged).
func (s *Shell) Fail(w http.ResponseWriter, r *http.Request, err error) {
	if f, ok := fault.As(err); ok && f.Kind != fault.Internal {
		s.Error(w, r, httpapi.StatusOf(f.Kind), f.Message)
		return
	}
	s.logFailure(r, err)
	s.Error(w, r, http.StatusInternalServerError, "Something went wrong on our side. Try again in a moment.")
}

// Refusal is the package's Refusal for a form that shows the message on
// the page itself: an error that is no refusal is logged, as Fail logs it,
// since the page says only that something went wrong.
func (s *Shell) Refusal(r *http.Request, err error) (int, string) {
	status, msg := Refusal(err)
	if status == http.StatusInternalServerError {
		s.logFailure(r, err)
	}
	return status, msg
}

func (s *Shell) logFailure(r *http.Request, err error) {
	if httpapi.ClientGone(r) {
		s.opts.Log.Info("dashboard request ended: the browser went away", "path", r.URL.Path, "err", err)
		return
	}
	s.opts.Log.Error("dashboard request failed", "path", r.URL.Path, "err", err)
}

// Redirect answers a POST with 303 to path (post/redirect/get).
func Redirect(w http.ResponseWriter, r *http.Request, path string) {
	http.Redirect(w, r, path, http.StatusSeeOther)
}

// Refusal is the status and message of a use case's refusal to show on a
// form; 500 and a generic message for anything that is not a refusal.
func Refusal(err error) (int, string) {
	if f, ok := fault.As(err); ok && f.Kind != fault.Internal {
		return httpapi.StatusOf(f.Kind), f.Message
	}
	return http.StatusInternalServerError, "Something went wrong on our side. Try again in a moment."
}

// Fragment writes one named block of tpl without the layout: what the
// dashboard's script fetches to refresh part of a page (Compose's live
// preview, a message's progress). The full page renders the same block.
func (s *Shell) Fragment(w http.ResponseWriter, r *http.Request, tpl *Template, name string, status int, data any) {
	var buf bytes.Buffer
	if err := tpl.t.ExecuteTemplate(&buf, name, data); err != nil {
		s.opts.Log.Error("dashboard fragment failed to render", "path", r.URL.Path, "block", name, "err", err)
		http.Error(w, "the page could not be shown", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// Show renders a page's view, or the error page for the error that
// building it met.
func (s *Shell) Show(w http.ResponseWriter, r *http.Request, tpl *Template, title string, view any, err error) {
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	s.Render(w, r, tpl, http.StatusOK, title, view)
}

// Refuse shows a write's refusal on the page it came from: again renders
// that page with the refusal's status and message. A missing object (404)
// or a failure gets the error page.
func (s *Shell) Refuse(w http.ResponseWriter, r *http.Request, err error, again func(status int, msg string)) {
	status, msg := Refusal(err)
	if status == http.StatusNotFound || status == http.StatusInternalServerError {
		s.Fail(w, r, err)
		return
	}
	again(status, msg)
}

// MaxOffset is the largest ?offset= a page reads (as the APIs' lists).
const MaxOffset = httpapi.MaxOffset

// Offset is a page's ?offset=: 0 when absent, bad or negative, and at most
// MaxOffset, so that no page's arithmetic on it overflows.
func Offset(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("offset"))
	if err != nil || n < 0 {
		return 0
	}
	return min(n, MaxOffset)
}
