// Package web is the roster's face in the staff dashboard (DASHBOARD.md):
// sign-in with a one-time code, sign-out and the team switcher, and the
// sessions and activity log the shell (platform/web) asks the roster for.
// Handlers call the roster's use cases only.
package web

import (
	"context"
	"embed"
	"errors"
	"net/http"

	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/web"
)

//go:embed templates/*.html
var templates embed.FS

// Sessions is the roster's sign-in as the shell sees it: web.Sessions and
// web.ActivityLog.
type Sessions struct{ SignIn *service.SignIn }

// Resolve implements web.Sessions.
func (s Sessions) Resolve(ctx context.Context, token string) (*web.Viewer, error) {
	v, err := s.SignIn.Resolve(ctx, token)
	if errors.Is(err, service.ErrNoSession) {
		return nil, web.ErrSignedOut
	}
	if err != nil {
		return nil, err
	}
	cur := v.Current
	teams := make([]web.TeamChoice, 0, len(v.Logins))
	for _, l := range v.Logins {
		teams = append(teams, web.TeamChoice{ID: l.Team.ID, Name: l.Team.Name})
	}
	member := service.MemberAPI(&cur.Member)
	return web.NewViewer(web.Viewer{SessionID: v.Session.ID, CSRF: v.Session.CSRF, MemberID: cur.Member.ID, Name: cur.Member.Name,
		TeamID: cur.Team.ID, TeamName: cur.Team.Name, TimeZone: cur.Team.TimeZone, Teams: teams, Picked: v.Session.Picked},
		func(p web.Permission) bool { return member.May(rosterapi.Permission(p)) }), nil
}

// Record implements web.ActivityLog.
func (s Sessions) Record(ctx context.Context, a web.Activity) error {
	return s.SignIn.Record(ctx, a.TeamID, a.MemberID, a.Action, a.Object, a.ClientIP)
}

// handler serves the roster's dashboard pages.
type handler struct {
	shell   *web.Shell
	signIn  *service.SignIn
	roster  *service.Service
	join    *service.WebJoin
	texts   messagingapi.DeliveryLog
	baseURL string                   // PUBLIC_BASE_URL, for the curl line of a new key
	t       map[string]*web.Template // the pages by name (templates/<name>.html)
}

// Deps are what the roster's pages need.
type Deps struct {
	SignIn     *service.SignIn
	Roster     *service.Service
	Join       *service.WebJoin         // the public sign-up page
	Deliveries messagingapi.DeliveryLog // a member's latest texts
	BaseURL    string
}

// pages are the roster's templates; those of the roster's own pages share
// the blocks of parts.html (the roster's tabs).
var pages = []string{"signin", "settings", "activity", "roster", "member", "groups", "fields", "optouts", "import", "importrun", "join"}

// Register adds the roster's pages to the shell: its route table.
func Register(shell *web.Shell, d Deps) error {
	h := &handler{shell: shell, signIn: d.SignIn, roster: d.Roster, join: d.Join, texts: d.Deliveries, baseURL: d.BaseURL, t: map[string]*web.Template{}}
	for _, name := range pages {
		t, err := shell.Template(templates, "templates/"+name+".html", "templates/parts.html")
		if err != nil {
			return err
		}
		h.t[name] = t
	}
	view, change, settings := web.Permission(rosterapi.PermView), rosterPerm(), settingsPerm()
	shell.Nav(web.NavItem{Name: "Roster", Path: "/app/roster", Order: 65, Perm: view},
		web.NavItem{Name: "Settings", Path: "/app/settings", Order: 100, Perm: settings})
	shell.Page("GET /app/roster", view, h.rosterShow)
	shell.Page("POST /app/roster", change, h.memberAdd)
	shell.Page("GET /app/roster/{member_id}", view, h.memberShow)
	shell.Page("POST /app/roster/{member_id}", change, h.memberChange)
	shell.Page("POST /app/roster/{member_id}/approve", change, h.memberApprove)
	shell.Page("POST /app/roster/{member_id}/block", change, h.memberBlock(true))
	shell.Page("POST /app/roster/{member_id}/unblock", change, h.memberBlock(false))
	shell.Page("POST /app/roster/{member_id}/remove", change, h.memberRemove)
	shell.Page("POST /app/roster/{member_id}/values", change, h.memberValues)
	shell.Page("POST /app/roster/{member_id}/groups", change, h.memberJoinGroup)
	shell.Page("POST /app/roster/{member_id}/groups/{group_id}/remove", change, h.memberLeaveGroup)
	shell.Page("POST /app/roster/{member_id}/undeliverable/clear", change, h.memberClearUndeliverable)
	shell.Page("GET /app/roster/groups", view, h.groupsShow)
	shell.Page("POST /app/roster/groups", change, h.groupCreate)
	shell.Page("POST /app/roster/groups/{group_id}/rename", change, h.groupRename)
	shell.Page("POST /app/roster/groups/{group_id}/delete", change, h.groupDelete)
	shell.Page("GET /app/roster/fields", view, h.fieldsShow)
	shell.Page("POST /app/roster/fields", change, h.fieldCreate)
	shell.Page("POST /app/roster/fields/{field_id}/public", change, h.fieldMakePublic)
	shell.Page("POST /app/roster/fields/{field_id}/delete", change, h.fieldDelete)
	shell.Page("GET /app/roster/opt-outs", view, h.optOutsShow)
	shell.Page("GET /app/roster/import", change, h.importShow)
	shell.Page("POST /app/roster/import", change, h.importStart)
	shell.Page("GET /app/roster/import/{import_id}", change, h.importRunShow)
	shell.Page("GET /app/roster/import/{import_id}/progress", change, h.importProgress)
	shell.Page("GET /app/roster/import/{import_id}/rejected.csv", change, h.importRejected)
	shell.Page("GET /app/settings", settings, h.settingsShow)
	shell.Page("POST /app/settings/keys", settings, h.keyCreate)
	shell.Page("POST /app/settings/joining", settings, h.joiningSave)
	shell.Page("POST /app/settings/keys/{key_id}/revoke", settings, h.keyRevoke)
	shell.Page("GET /app/settings/activity", settings, h.activityShow)
	shell.Page("GET /app/settings/activity.csv", settings, h.activityCSV)
	shell.Page("POST /app/settings/staff", settings, h.staffInvite)
	shell.Page("POST /app/settings/staff/{member_id}", settings, h.staffChange)
	shell.Public("GET /app/sign-in", h.signInShow)
	shell.Public("POST /app/sign-in", h.codeSend)
	shell.Public("POST /app/sign-in/code", h.signInCheck)
	shell.Public("GET /join/{team_code}", h.joinShow)
	shell.Public("POST /join/{team_code}", h.joinSignUp)
	shell.Public("POST /join/{team_code}/code", h.joinConfirm)
	shell.Public("/join/", h.joinNotFound)
	shell.Page("POST /app/sign-out", 0, h.signOut)
	shell.Page("POST /app/team", 0, h.teamPick)
	return nil
}

// show renders a page's view, or the error page (web.Shell.Show).
func (h *handler) show(w http.ResponseWriter, r *http.Request, tpl *web.Template, title string, view any, err error) {
	h.shell.Show(w, r, tpl, title, view, err)
}

// refuse shows a write's refusal on the page it came from (web.Shell.Refuse).
func (h *handler) refuse(w http.ResponseWriter, r *http.Request, err error, again func(status int, msg string)) {
	h.shell.Refuse(w, r, err, again)
}

// errNotStaffRole refuses an invitation without a staff role.
var errNotStaffRole = fault.Invalidf("choose a staff role: coach, head coach, team director or board member")

// errStaffOnly refuses a change to the staff to those who do not keep it.
var errStaffOnly = fault.New(fault.Forbidden, fault.CodeForbidden, "only head coaches and team directors change the staff")

func rosterPerm() web.Permission { return web.Permission(rosterapi.PermRoster) }

// signInForm is what the sign-in page shows.
type signInForm struct {
	Identity string
	CodeSent bool
	Error    string
}

// signInShow is GET /app/sign-in: "Phone or e-mail" and "Send code"; a
// signed-in person goes to the dashboard.
func (h *handler) signInShow(w http.ResponseWriter, r *http.Request) {
	if h.shell.OptionalViewer(r) != nil {
		http.Redirect(w, r, "/app/", http.StatusSeeOther)
		return
	}
	h.shell.RenderPublic(w, r, h.t["signin"], http.StatusOK, "Sign in", signInForm{})
}

// codeSend is POST /app/sign-in: a code is sent if the identity has a
// login, and the page answers the same either way with the Code field.
func (h *handler) codeSend(w http.ResponseWriter, r *http.Request) {
	f := signInForm{Identity: r.PostFormValue("identity")}
	if err := h.signIn.RequestCode(r.Context(), f.Identity, h.shell.ClientIP(r)); err != nil {
		h.formError(w, r, f, err)
		return
	}
	f.CodeSent = true
	h.shell.RenderPublic(w, r, h.t["signin"], http.StatusOK, "Sign in", f)
}

// signInCheck is POST /app/sign-in/code: a right code opens a session and
// goes to the dashboard.
func (h *handler) signInCheck(w http.ResponseWriter, r *http.Request) {
	f := signInForm{Identity: r.PostFormValue("identity"), CodeSent: true}
	s, err := h.signIn.Verify(r.Context(), f.Identity, r.PostFormValue("code"), web.Token())
	if err != nil {
		h.formError(w, r, f, err)
		return
	}
	h.shell.SetSession(w, s.Token, s.Expires)
	web.Redirect(w, r, "/app/")
}

func (h *handler) formError(w http.ResponseWriter, r *http.Request, f signInForm, err error) {
	status, msg := web.Refusal(err)
	if status >= 500 {
		h.shell.Fail(w, r, err)
		return
	}
	f.Error = msg
	h.shell.RenderPublic(w, r, h.t["signin"], status, "Sign in", f)
}

// signOut is POST /app/sign-out.
func (h *handler) signOut(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	if err := h.signIn.SignOut(r.Context(), v.SessionID); err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	h.shell.ClearSession(w)
	web.Redirect(w, r, "/app/sign-in")
}

// teamPick is POST /app/team: the switcher.
func (h *handler) teamPick(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	if err := h.signIn.Pick(r.Context(), web.SessionToken(r), r.PostFormValue("team_id")); err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	web.Redirect(w, r, "/app/")
}
