package web

import (
	"context"
	"net/http"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/web"
)

// staffForm is the Invite form as typed, after a refusal.
type staffForm struct {
	Name, Phone, Email, Role string
	Err                      string
}

// staffRoles are the roles Settings gives: the staff's.
func staffRoles() []roleChoice {
	var out []roleChoice
	for _, r := range roles {
		if r.Staff {
			out = append(out, r)
		}
	}
	return out
}

// staff is the team's staff and logins, for Settings.
func (h *handler) staff(ctx context.Context, teamID string) ([]service.MemberView, error) {
	return h.roster.ListMembers(ctx, teamID, domain.MemberFilter{Staff: true, Limit: maxGroups})
}

// staffInvite is POST /app/settings/staff: a staff member with a login,
// who gets a text with the sign-in link.
func (h *handler) staffInvite(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	ctx := r.Context()
	f := staffForm{Name: r.PostFormValue("name"), Phone: r.PostFormValue("phone"), Email: r.PostFormValue("email"), Role: r.PostFormValue("role")}
	var err error
	if !rosterapi.Role(f.Role).IsStaff() {
		err = errNotStaffRole
	} else {
		err = h.shell.Do(ctx, r, v, "invited staff", func(ctx context.Context) (string, error) {
			m, err := h.roster.AddMember(ctx, v.TeamID, service.NewMember{Name: f.Name, Phone: f.Phone, Email: f.Email, Role: f.Role,
				DashboardLogin: true}, service.FromDashboard())
			if err != nil {
				return "", err
			}
			team, err := h.roster.TeamView(ctx, v.TeamID)
			if err != nil {
				return "", err
			}
			return m.ID, h.signIn.Invite(ctx, team.Team, m.Member, h.baseURL+"/app/sign-in")
		})
	}
	if err != nil {
		h.refuse(w, r, err, func(status int, msg string) {
			sv, verr := h.settingsView(ctx, r, v)
			if verr != nil {
				h.shell.Fail(w, r, verr)
				return
			}
			f.Err, sv.Invite = msg, f
			h.shell.Render(w, r, h.t["settings"], status, "Settings", sv)
		})
		return
	}
	web.Redirect(w, r, "/app/settings#staff")
}

// staffChange is POST /app/settings/staff/{member_id}: role, dashboard
// login and can_send_broadcasts. A head coach or team director who stops
// being one (or may no longer send) loses their keys for good and their
// webhooks turn off (creator_inactive), as the page says before.
func (h *handler) staffChange(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	id := r.PathValue("member_id")
	role, login, send := r.PostFormValue("role"), r.PostFormValue("dashboard_login") != "", r.PostFormValue("can_send_broadcasts") != ""
	err := h.shell.Do(r.Context(), r, v, "changed staff", func(ctx context.Context) (string, error) {
		p := service.MemberPatch{DashboardLogin: &login, CanSendBroadcasts: &send}
		if role != "" {
			p.Role = &role
		}
		_, err := h.roster.PatchMember(ctx, v.TeamID, id, p)
		return id, err
	})
	if err != nil {
		h.refuse(w, r, err, func(status int, msg string) {
			sv, verr := h.settingsView(r.Context(), r, v)
			if verr != nil {
				h.shell.Fail(w, r, verr)
				return
			}
			sv.StaffErr = msg
			h.shell.Render(w, r, h.t["settings"], status, "Settings", sv)
		})
		return
	}
	web.Redirect(w, r, "/app/settings#staff")
}
