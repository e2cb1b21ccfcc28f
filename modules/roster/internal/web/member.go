package web

import (
	"context"
	"net/http"

	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/phone"
	"github.com/teamtext/teamtext/platform/web"
)

// memberHistory is how many consent facts a member's page shows.
const memberHistory = 50

// memberTexts is how many of their latest texts a member's page lists.
const memberTexts = 10

// memberView is a member's page.
type memberView struct {
	M         *service.MemberView
	Groups    []domain.Group // the member's groups
	Others    []domain.Group // the groups they are not in
	Fields    []fieldValue
	History   []domain.ConsentEvent
	Texts     []messagingapi.Delivery // the latest texts to the member's number
	CanChange bool                    // roster changes on this entry (staff entries: only those who keep the staff)
	Editable  bool                    // name, phone, e-mail, role, time zone and values (not staff, no login)
	Roles     []roleChoice            // the roles an editable entry may take (not staff)
	Zone      string
	Err       string
}

// fieldValue is a custom field with the member's value.
type fieldValue struct {
	domain.CustomField
	Value string
}

func (h *handler) memberView(ctx context.Context, v *web.Viewer, id string) (*memberView, error) {
	m, err := h.roster.GetMember(ctx, v.TeamID, id)
	if err != nil {
		return nil, err
	}
	gs, err := h.roster.Groups(ctx, v.TeamID, maxGroups, 0)
	if err != nil {
		return nil, err
	}
	c, err := h.roster.MemberConsent(ctx, v.TeamID, id, memberHistory, 0)
	if err != nil {
		return nil, err
	}
	mv := &memberView{M: m, History: c.History, Zone: v.TimeZone, Editable: !m.Protected()}
	for _, r := range roles {
		if !r.Staff {
			mv.Roles = append(mv.Roles, r)
		}
	}
	mv.CanChange = v.May(rosterPerm()) && (!m.Protected() || v.May(settingsPerm()))
	in := map[string]bool{}
	for _, g := range m.GroupIDs {
		in[g] = true
	}
	for _, g := range gs {
		if in[g.ID] {
			mv.Groups = append(mv.Groups, g)
		} else {
			mv.Others = append(mv.Others, g)
		}
	}
	if mv.Texts, err = h.texts.LatestTo(ctx, v.TeamID, phone.Number(m.Phone), memberTexts); err != nil {
		return nil, err
	}
	fs, err := h.roster.CustomFields(ctx, v.TeamID)
	if err != nil {
		return nil, err
	}
	vals, err := h.roster.MemberValues(ctx, v.TeamID, id)
	if err != nil {
		return nil, err
	}
	for _, f := range fs {
		mv.Fields = append(mv.Fields, fieldValue{CustomField: f, Value: vals[f.Key]})
	}
	return mv, nil
}

// memberShow is GET /app/roster/{member_id}.
func (h *handler) memberShow(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	mv, err := h.memberView(r.Context(), v, r.PathValue("member_id"))
	title := "Member"
	if mv != nil {
		title = mv.M.Name
	}
	h.show(w, r, h.t["member"], title, mv, err)
}

// memberWrite runs one change to a member as action: refused on a staff
// entry for those who do not keep the staff, and shown again with the
// refusal on the member's page; on success back to that page.
func (h *handler) memberWrite(w http.ResponseWriter, r *http.Request, v *web.Viewer, action string, fn func(ctx context.Context, id string) error) {
	ctx, id := r.Context(), r.PathValue("member_id")
	m, err := h.roster.GetMember(ctx, v.TeamID, id)
	if err == nil && m.Protected() && !v.May(settingsPerm()) {
		err = errStaffOnly
	}
	if err == nil {
		err = h.shell.Do(ctx, r, v, action, func(ctx context.Context) (string, error) { return id, fn(ctx, id) })
	}
	if err != nil {
		h.refuse(w, r, err, func(status int, msg string) {
			mv, verr := h.memberView(ctx, v, id)
			if verr != nil {
				h.shell.Fail(w, r, verr)
				return
			}
			mv.Err = msg
			h.shell.Render(w, r, h.t["member"], status, mv.M.Name, mv)
		})
		return
	}
	web.Redirect(w, r, "/app/roster/"+id)
}

// optional is a form value as a change: nil when the field was not sent.
func optional(r *http.Request, name string) *string {
	if _, ok := r.PostForm[name]; !ok {
		return nil
	}
	s := r.PostForm.Get(name)
	return &s
}

// memberChange is POST /app/roster/{member_id}: name, phone, e-mail, role,
// time zone (empty clears it).
func (h *handler) memberChange(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	_ = r.ParseForm()
	c := service.MemberChange{Name: optional(r, "name"), Phone: optional(r, "phone"), Email: optional(r, "email"), Role: optional(r, "role"),
		TimeZone: optional(r, "time_zone")}
	h.memberWrite(w, r, v, "changed member", func(ctx context.Context, id string) error {
		if c.Role != nil {
			if err := mayGiveRole(v, *c.Role); err != nil {
				return err
			}
		}
		_, err := h.roster.ChangeMember(ctx, v.TeamID, id, c)
		return err
	})
}

// memberApprove is POST /app/roster/{member_id}/approve: a pending member joins.
func (h *handler) memberApprove(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	h.memberWrite(w, r, v, "approved member", func(ctx context.Context, id string) error {
		_, err := h.roster.ApproveMember(ctx, v.TeamID, id)
		return err
	})
}

// memberBlock is POST /app/roster/{member_id}/block and /unblock.
func (h *handler) memberBlock(block bool) func(http.ResponseWriter, *http.Request, *web.Viewer) {
	action := "blocked member"
	if !block {
		action = "unblocked member"
	}
	return func(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
		h.memberWrite(w, r, v, action, func(ctx context.Context, id string) error {
			_, err := h.roster.PatchMember(ctx, v.TeamID, id, service.MemberPatch{IsBlocked: &block})
			return err
		})
	}
}

// memberRemove is POST /app/roster/{member_id}/remove.
func (h *handler) memberRemove(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	ctx, id := r.Context(), r.PathValue("member_id")
	m, err := h.roster.GetMember(ctx, v.TeamID, id)
	if err == nil && m.Protected() && !v.May(settingsPerm()) {
		err = errStaffOnly
	}
	if err == nil {
		err = h.shell.Do(ctx, r, v, "removed member", func(ctx context.Context) (string, error) {
			return id, h.roster.RemoveMember(ctx, v.TeamID, id)
		})
	}
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	web.Redirect(w, r, "/app/roster")
}

// memberValues is POST /app/roster/{member_id}/values: custom-field values
// by key (private ones included; empty clears).
func (h *handler) memberValues(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	_ = r.ParseForm()
	vals := map[string]string{}
	for k, vs := range r.PostForm {
		if len(k) > 6 && k[:6] == "value." && len(vs) > 0 {
			vals[k[6:]] = vs[0]
		}
	}
	h.memberWrite(w, r, v, "changed member's fields", func(ctx context.Context, id string) error {
		_, err := h.roster.SetMemberValues(ctx, v.TeamID, id, vals)
		return err
	})
}

// memberJoinGroup is POST /app/roster/{member_id}/groups: add to a group.
func (h *handler) memberJoinGroup(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	g := r.PostFormValue("group_id")
	h.memberWrite(w, r, v, "added member to group", func(ctx context.Context, id string) error {
		_, err := h.roster.AddToGroup(ctx, v.TeamID, g, id)
		return err
	})
}

// memberLeaveGroup is POST /app/roster/{member_id}/groups/{group_id}/remove.
func (h *handler) memberLeaveGroup(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	g := r.PathValue("group_id")
	h.memberWrite(w, r, v, "removed member from group", func(ctx context.Context, id string) error {
		return h.roster.RemoveFromGroup(ctx, v.TeamID, g, id)
	})
}

// memberClearUndeliverable is POST /app/roster/{member_id}/undeliverable/clear.
func (h *handler) memberClearUndeliverable(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	h.memberWrite(w, r, v, "cleared undeliverable mark", func(ctx context.Context, id string) error {
		_, err := h.roster.ClearMemberUndeliverable(ctx, v.TeamID, id)
		return err
	})
}
