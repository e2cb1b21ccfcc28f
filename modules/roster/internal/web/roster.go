package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/web"
)

// rosterPage is how many members a roster page lists.
const rosterPage = 50

// maxGroups is how many groups the pages offer as filters and choices.
const maxGroups = 500

// roleChoice is a role as the pages offer it.
type roleChoice struct {
	Value, Label string
	Staff        bool
}

// roles are the roster's roles in the order the pages offer them.
var roles = []roleChoice{
	{string(rosterapi.RoleAthlete), "Athlete", false}, {string(rosterapi.RoleGuardian), "Guardian", false},
	{string(rosterapi.RoleEmergencyContact), "Emergency contact", false}, {string(rosterapi.RoleOutside), "Outside", false},
	{string(rosterapi.RoleCoach), "Coach", true}, {string(rosterapi.RoleHeadCoach), "Head coach", true},
	{string(rosterapi.RoleTeamDirector), "Team director", true}, {string(rosterapi.RoleBoardMember), "Board member", true},
}

// memberRow is a member as the roster table lists it.
type memberRow struct {
	service.MemberView
	Groups []string // the member's groups by name
}

// rosterFilter is the roster page's query.
type rosterFilter struct {
	Search, GroupID, Role, Status string
}

func (f rosterFilter) query(offset int) string {
	q := url.Values{}
	for k, v := range map[string]string{"q": f.Search, "group": f.GroupID, "role": f.Role, "status": f.Status} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	if len(q) == 0 {
		return "/app/roster"
	}
	return "/app/roster?" + q.Encode()
}

// memberForm is the Add member form as typed, after a refusal.
type memberForm struct {
	Name, Phone, Email, Role string
	GroupIDs                 map[string]bool
	Err                      string
}

// rosterView is the roster page.
type rosterView struct {
	Filter     rosterFilter
	Members    []memberRow
	Groups     []domain.Group
	Roles      []roleChoice // every role, for the filter
	Statuses   []string
	AddRoles   []roleChoice // the roles the viewer may add
	Prev, Next string
	CanChange  bool
	Form       memberForm
	Err        string // a refused filter (an invalid phone, say)
}

// groupNames maps a team's group ids to names.
func groupNames(gs []domain.Group) map[string]string {
	m := make(map[string]string, len(gs))
	for _, g := range gs {
		m[g.ID] = g.Name
	}
	return m
}

// addRoles are the roles v may give a new member: staff roles only for
// those who keep the staff (head coaches, team directors).
func addRoles(v *web.Viewer) []roleChoice {
	var out []roleChoice
	for _, r := range roles {
		if !r.Staff || v.May(settingsPerm()) {
			out = append(out, r)
		}
	}
	return out
}

func (h *handler) rosterView(ctx context.Context, r *http.Request, v *web.Viewer) (*rosterView, error) {
	q := r.URL.Query()
	f := rosterFilter{Search: strings.TrimSpace(q.Get("q")), GroupID: q.Get("group"), Role: q.Get("role"), Status: q.Get("status")}
	off := web.Offset(r)
	gs, err := h.roster.Groups(ctx, v.TeamID, maxGroups, 0)
	if err != nil {
		return nil, err
	}
	rv := &rosterView{Filter: f, Groups: gs, Roles: roles, Statuses: []string{"pending", "active", "opted_out"}, AddRoles: addRoles(v), CanChange: v.May(rosterPerm()),
		Form: memberForm{Role: string(rosterapi.RoleAthlete)}}
	ms, err := h.roster.ListMembers(ctx, v.TeamID, domain.MemberFilter{Search: f.Search, GroupID: f.GroupID, Role: f.Role,
		Status: f.Status, Limit: rosterPage, Offset: off})
	if err != nil {
		_, rv.Err = h.shell.Refusal(r, err)
		return rv, nil
	}
	names := groupNames(gs)
	for _, m := range ms[:min(len(ms), rosterPage)] {
		row := memberRow{MemberView: m}
		for _, id := range m.GroupIDs {
			row.Groups = append(row.Groups, names[id])
		}
		rv.Members = append(rv.Members, row)
	}
	if off > 0 {
		rv.Prev = f.query(max(off-rosterPage, 0))
	}
	if len(ms) > rosterPage {
		rv.Next = f.query(off + rosterPage)
	}
	return rv, nil
}

// rosterShow is GET /app/roster: the members, searched and filtered.
func (h *handler) rosterShow(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	rv, err := h.rosterView(r.Context(), r, v)
	h.show(w, r, h.t["roster"], "Roster", rv, err)
}

// memberAdd is POST /app/roster: Add member, as a dashboard add (consent
// source dashboard, member.joined when active).
func (h *handler) memberAdd(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	ctx := r.Context()
	_ = r.ParseForm()
	form := memberForm{Name: r.PostFormValue("name"), Phone: r.PostFormValue("phone"), Email: r.PostFormValue("email"),
		Role: r.PostFormValue("role"), GroupIDs: map[string]bool{}}
	for _, g := range r.PostForm["group_id"] {
		form.GroupIDs[g] = true
	}
	var id string
	err := mayGiveRole(v, form.Role)
	if err == nil {
		err = h.shell.Do(ctx, r, v, "added member", func(ctx context.Context) (string, error) {
			m, err := h.roster.AddMember(ctx, v.TeamID, service.NewMember{Name: form.Name, Phone: form.Phone, Email: form.Email,
				Role: form.Role, GroupIDs: r.PostForm["group_id"]}, service.FromDashboard())
			if err != nil {
				return "", err
			}
			id = m.ID
			return id, nil
		})
	}
	if err != nil {
		h.refuse(w, r, err, func(status int, msg string) {
			rv, verr := h.rosterView(ctx, r, v)
			if verr != nil {
				h.shell.Fail(w, r, verr)
				return
			}
			form.Err, rv.Form = msg, form
			h.shell.Render(w, r, h.t["roster"], status, "Roster", rv)
		})
		return
	}
	web.Redirect(w, r, "/app/roster/"+id)
}

// mayGiveRole refuses a staff role to those who do not keep the staff.
func mayGiveRole(v *web.Viewer, role string) error {
	if rosterapi.Role(role).IsStaff() && !v.May(settingsPerm()) {
		return errStaffOnly
	}
	return nil
}
