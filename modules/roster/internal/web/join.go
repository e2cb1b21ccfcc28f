package web

import (
	"net/http"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/platform/web"
)

// The team's public sign-up page: GET /join/{team_code}, no
// sign-in. "Sign up" texts a 6-digit code to the phone; "Confirm" with the
// right code adds the member (consent source web_signup). The page's
// answer to "Sign up" is the same whether or not the number is on the
// roster. Forms carry the form cookie's CSRF token (web.Shell.Public); no
// JavaScript.

// joinForm is what the sign-up page shows.
type joinForm struct {
	TeamName   string
	TeamCode   string
	Disclosure string
	Name       string
	Phone      string
	Role       string
	Consent    bool
	CodeSent   bool // the code step
	Done       bool
	Pending    bool
	Error      string
}

func (h *handler) joinPage(w http.ResponseWriter, r *http.Request, status int, f joinForm) {
	h.shell.RenderPublic(w, r, h.t["join"], status, "Join "+f.TeamName, f)
}

// joinTeam reads the page's team, or shows the 404 page.
func (h *handler) joinTeam(w http.ResponseWriter, r *http.Request) (*domain.Team, bool) {
	t, err := h.join.Team(r.Context(), r.PathValue("team_code"))
	if err != nil {
		h.shell.Fail(w, r, err)
		return nil, false
	}
	return t, true
}

func formOf(t *domain.Team) joinForm {
	return joinForm{TeamName: t.Name, TeamCode: t.Code, Disclosure: domain.JoinDisclosure(t.Name), Role: "athlete"}
}

// joinShow is GET /join/{team_code}: Name, Phone, Role, the consent box
// and "Sign up".
func (h *handler) joinShow(w http.ResponseWriter, r *http.Request) {
	t, ok := h.joinTeam(w, r)
	if !ok {
		return
	}
	h.joinPage(w, r, http.StatusOK, formOf(t))
}

// joinSignUp is POST /join/{team_code}: the code step, the same page
// whether or not the number is on the roster.
func (h *handler) joinSignUp(w http.ResponseWriter, r *http.Request) {
	t, ok := h.joinTeam(w, r)
	if !ok {
		return
	}
	f := formOf(t)
	f.Name, f.Phone, f.Role, f.Consent = r.PostFormValue("name"), r.PostFormValue("phone"), r.PostFormValue("role"), r.PostFormValue("consent") != ""
	ph, err := h.join.SignUp(r.Context(), t.Code, f.Name, f.Phone, f.Role, f.Consent, h.shell.ClientIP(r))
	if err != nil {
		h.joinError(w, r, f, err)
		return
	}
	f.Phone, f.CodeSent = ph, true
	h.joinPage(w, r, http.StatusOK, f)
}

// joinConfirm is POST /join/{team_code}/code: a right code adds the member
// and shows the done page; a wrong one the code step again.
func (h *handler) joinConfirm(w http.ResponseWriter, r *http.Request) {
	t, ok := h.joinTeam(w, r)
	if !ok {
		return
	}
	f := formOf(t)
	f.Phone, f.CodeSent = r.PostFormValue("phone"), true
	pending, err := h.join.Confirm(r.Context(), t.Code, f.Phone, r.PostFormValue("code"))
	if err != nil {
		h.joinError(w, r, f, err)
		return
	}
	f.CodeSent, f.Done, f.Pending = false, true, pending
	h.joinPage(w, r, http.StatusOK, f)
}

func (h *handler) joinError(w http.ResponseWriter, r *http.Request, f joinForm, err error) {
	status, msg := web.Refusal(err)
	if status >= 500 || status == http.StatusNotFound {
		h.shell.Fail(w, r, err)
		return
	}
	f.Error = msg
	h.joinPage(w, r, status, f)
}

// joinNotFound answers any other path under /join/.
func (h *handler) joinNotFound(w http.ResponseWriter, r *http.Request) {
	h.shell.Error(w, r, http.StatusNotFound, "There is no such page.")
}
