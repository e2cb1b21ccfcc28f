package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/web"
)

// listView is a roster tab's list with the form of its add, as typed
// after a refusal.
type listView[T any] struct {
	Items      []T
	Form       map[string]string
	Err        string
	CanChange  bool
	Zone       string
	Prev, Next string
}

// rosterWrite runs a roster tab's write as action and goes back to the
// tab; a refusal shows the tab again with it and the form as typed.
func (h *handler) rosterWrite(w http.ResponseWriter, r *http.Request, v *web.Viewer, action, back string,
	fn func(ctx context.Context) (string, error), again func(status int, msg string)) {
	if err := h.shell.Do(r.Context(), r, v, action, fn); err != nil {
		h.refuse(w, r, err, again)
		return
	}
	web.Redirect(w, r, back)
}

// groupsView is the Groups tab.
func (h *handler) groupsView(ctx context.Context, v *web.Viewer) (*listView[domain.Group], error) {
	gs, err := h.roster.Groups(ctx, v.TeamID, maxGroups, 0)
	return &listView[domain.Group]{Items: gs, CanChange: v.May(rosterPerm())}, err
}

// groupsShow is GET /app/roster/groups.
func (h *handler) groupsShow(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	gv, err := h.groupsView(r.Context(), v)
	h.show(w, r, h.t["groups"], "Groups", gv, err)
}

// groupsAgain shows the Groups tab with a refusal.
func (h *handler) groupsAgain(w http.ResponseWriter, r *http.Request, v *web.Viewer, form map[string]string) func(int, string) {
	return func(status int, msg string) {
		gv, err := h.groupsView(r.Context(), v)
		if err != nil {
			h.shell.Fail(w, r, err)
			return
		}
		gv.Err, gv.Form = msg, form
		h.shell.Render(w, r, h.t["groups"], status, "Groups", gv)
	}
}

// groupCreate is POST /app/roster/groups.
func (h *handler) groupCreate(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	name := r.PostFormValue("name")
	h.rosterWrite(w, r, v, "created group", "/app/roster/groups", func(ctx context.Context) (string, error) {
		g, err := h.roster.CreateGroup(ctx, v.TeamID, name)
		if err != nil {
			return "", err
		}
		return g.ID, nil
	}, h.groupsAgain(w, r, v, map[string]string{"name": name}))
}

// groupRename is POST /app/roster/groups/{group_id}/rename.
func (h *handler) groupRename(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	id, name := r.PathValue("group_id"), r.PostFormValue("name")
	h.rosterWrite(w, r, v, "renamed group", "/app/roster/groups", func(ctx context.Context) (string, error) {
		_, err := h.roster.RenameGroup(ctx, v.TeamID, id, name)
		return id, err
	}, h.groupsAgain(w, r, v, nil))
}

// groupDelete is POST /app/roster/groups/{group_id}/delete.
func (h *handler) groupDelete(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	id := r.PathValue("group_id")
	h.rosterWrite(w, r, v, "deleted group", "/app/roster/groups", func(ctx context.Context) (string, error) {
		return id, h.roster.DeleteGroup(ctx, v.TeamID, id)
	}, h.groupsAgain(w, r, v, nil))
}

// fieldsView is the Custom fields tab.
func (h *handler) fieldsView(ctx context.Context, v *web.Viewer) (*listView[domain.CustomField], error) {
	fs, err := h.roster.CustomFields(ctx, v.TeamID)
	return &listView[domain.CustomField]{Items: fs, CanChange: v.May(rosterPerm())}, err
}

// fieldsShow is GET /app/roster/fields.
func (h *handler) fieldsShow(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	fv, err := h.fieldsView(r.Context(), v)
	h.show(w, r, h.t["fields"], "Custom fields", fv, err)
}

func (h *handler) fieldsAgain(w http.ResponseWriter, r *http.Request, v *web.Viewer, form map[string]string) func(int, string) {
	return func(status int, msg string) {
		fv, err := h.fieldsView(r.Context(), v)
		if err != nil {
			h.shell.Fail(w, r, err)
			return
		}
		fv.Err, fv.Form = msg, form
		h.shell.Render(w, r, h.t["fields"], status, "Custom fields", fv)
	}
}

// fieldCreate is POST /app/roster/fields: Label, Key, Private.
func (h *handler) fieldCreate(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	form := map[string]string{"label": r.PostFormValue("label"), "key": r.PostFormValue("key"), "private": r.PostFormValue("private")}
	h.rosterWrite(w, r, v, "added field", "/app/roster/fields", func(ctx context.Context) (string, error) {
		f, err := h.roster.CreateCustomField(ctx, v.TeamID, form["label"], form["key"], form["private"] != "")
		if err != nil {
			return "", err
		}
		return f.ID, nil
	}, h.fieldsAgain(w, r, v, form))
}

// fieldMakePublic is POST /app/roster/fields/{field_id}/public: Make
// public, allowed from the dashboard only (spec §2).
func (h *handler) fieldMakePublic(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	id, public := r.PathValue("field_id"), false
	h.rosterWrite(w, r, v, "made field public", "/app/roster/fields", func(ctx context.Context) (string, error) {
		_, err := h.roster.ChangeCustomField(ctx, v.TeamID, id, service.FieldChange{Private: &public}, true)
		return id, err
	}, h.fieldsAgain(w, r, v, nil))
}

// fieldDelete is POST /app/roster/fields/{field_id}/delete (private ones
// too, from the dashboard).
func (h *handler) fieldDelete(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	id := r.PathValue("field_id")
	h.rosterWrite(w, r, v, "deleted field", "/app/roster/fields", func(ctx context.Context) (string, error) {
		return id, h.roster.DeleteCustomField(ctx, v.TeamID, id, true)
	}, h.fieldsAgain(w, r, v, nil))
}

// optOutsPage is how many opt-outs a page lists.
const optOutsPage = 50

// optOutsShow is GET /app/roster/opt-outs: read-only, with how each opt-out
// was recorded.
func (h *handler) optOutsShow(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	off := web.Offset(r)
	os, err := h.roster.OptOuts(r.Context(), v.TeamID, optOutsPage, off)
	ov := &listView[service.OptOutResult]{Items: os[:min(len(os), optOutsPage)], Zone: v.TimeZone}
	if off > 0 {
		ov.Prev = "/app/roster/opt-outs?offset=" + strconv.Itoa(max(off-optOutsPage, 0))
	}
	if len(os) > optOutsPage {
		ov.Next = "/app/roster/opt-outs?offset=" + strconv.Itoa(off+optOutsPage)
	}
	h.show(w, r, h.t["optouts"], "Opt-outs", ov, err)
}
