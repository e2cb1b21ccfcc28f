package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/web"
)

// settingsPage is how many keys or activity entries a page lists.
const settingsPage = 50

// keyRow is an API key as Settings lists it: by the key's own first
// characters (as the admin API's prefix), never more of it.
type keyRow struct {
	domain.APIKey
	Prefix  string
	Creator string
}

// keyShown is how many of the key's own characters a list shows.
const keyShown = 4

// settingsView is Settings: the team, and its API keys (Developers).
type settingsView struct {
	Team    domain.Team
	Keys    []keyRow
	Created string // a key just created: shown once
	Name    string // the Name field as typed, after a refusal
	Err     string
	BaseURL string
	Zone    string
}

func (h *handler) settingsView(ctx context.Context, r *http.Request, v *web.Viewer) (*settingsView, error) {
	team, err := h.roster.TeamView(ctx, v.TeamID)
	if err != nil {
		return nil, err
	}
	ks, err := h.roster.Keys(ctx, v.TeamID, settingsPage, 0)
	if err != nil {
		return nil, err
	}
	sv := &settingsView{Team: team.Team, Zone: v.TimeZone, BaseURL: h.baseURL}
	names := map[string]string{}
	for _, k := range ks[:min(len(ks), settingsPage)] {
		if _, ok := names[k.MemberID]; !ok {
			names[k.MemberID] = ""
			if m, err := h.roster.GetMember(ctx, v.TeamID, k.MemberID); err == nil {
				names[k.MemberID] = m.Name
			}
		}
		sv.Keys = append(sv.Keys, keyRow{APIKey: k, Prefix: auth.KeyPrefix + k.Lookup[:min(len(k.Lookup), keyShown)], Creator: names[k.MemberID]})
	}
	return sv, nil
}

// settingsShow is GET /app/settings.
func (h *handler) settingsShow(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	sv, err := h.settingsView(r.Context(), r, v)
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	h.shell.Render(w, r, h.settings, http.StatusOK, "Settings", sv)
}

// keyCreate is POST /app/settings/keys: Create key. The key acts for the
// person creating it and is shown once, on the answer to this POST.
func (h *handler) keyCreate(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	ctx := r.Context()
	name := r.PostFormValue("name")
	var value string
	err := h.shell.Do(ctx, r, v, "created key", func(ctx context.Context) (string, error) {
		k, err := h.roster.CreateKey(ctx, v.TeamID, v.MemberID, name)
		if err != nil {
			return "", err
		}
		value = k.Value
		return k.Key.ID, nil
	})
	sv, verr := h.settingsView(ctx, r, v)
	if verr != nil {
		h.shell.Fail(w, r, verr)
		return
	}
	status := http.StatusCreated
	if err != nil {
		status, sv.Err = web.Refusal(err)
		sv.Name = name
	}
	sv.Created = value
	h.shell.Render(w, r, h.settings, status, "Settings", sv)
}

// keyRevoke is POST /app/settings/keys/{key_id}/revoke.
func (h *handler) keyRevoke(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	id := r.PathValue("key_id")
	err := h.shell.Do(r.Context(), r, v, "revoked key", func(ctx context.Context) (string, error) {
		_, err := h.roster.RevokeKey(ctx, v.TeamID, id)
		return id, err
	})
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	web.Redirect(w, r, "/app/settings#keys")
}

// activityView is the activity log.
type activityView struct {
	Entries []domain.Activity
	Next    string
	Zone    string
}

// activityShow is GET /app/settings/activity: every dashboard write,
// newest first, with who did it.
func (h *handler) activityShow(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	off, err := strconv.Atoi(r.URL.Query().Get("offset"))
	if err != nil || off < 0 {
		off = 0
	}
	es, err := h.signIn.ActivityLog(r.Context(), v.TeamID, settingsPage, off)
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	av := activityView{Entries: es[:min(len(es), settingsPage)], Zone: v.TimeZone}
	if len(es) > settingsPage {
		av.Next = "/app/settings/activity?offset=" + strconv.Itoa(off+settingsPage)
	}
	h.shell.Render(w, r, h.activity, http.StatusOK, "Activity", av)
}

func settingsPerm() web.Permission { return web.Permission(rosterapi.PermSettings) }
