package web

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
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
	Account billingapi.Account
	Keys    []keyRow
	Created string // a key just created: shown once
	Name    string // the Name field as typed, after a refusal
	Err     string
	BaseURL string
	Zone    string
	// Staff are the team's staff and logins; Roles the staff roles.
	Staff    []service.MemberView
	Roles    []roleChoice
	Invite   staffForm
	StaffErr string
	Me       string // the viewer's member id: their own row warns more
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
	staff, err := h.staff(ctx, v.TeamID)
	if err != nil {
		return nil, err
	}
	sv := &settingsView{Team: team.Team, Account: team.Account, Zone: v.TimeZone, BaseURL: h.baseURL, Staff: staff, Roles: staffRoles(), Me: v.MemberID,
		Invite: staffForm{Role: string(rosterapi.RoleCoach)}}
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
	h.shell.Render(w, r, h.t["settings"], http.StatusOK, "Settings", sv)
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
		status, sv.Err = h.shell.Refusal(r, err)
		sv.Name = name
	}
	sv.Created = value
	h.shell.Render(w, r, h.t["settings"], status, "Settings", sv)
}

// joiningSave is POST /app/settings/joining: whether new joiners (by
// text, on the sign-up page) wait for approval.
func (h *handler) joiningSave(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	required := r.PostFormValue("join_approval_required") != ""
	err := h.shell.Do(r.Context(), r, v, "changed joining", func(ctx context.Context) (string, error) {
		_, err := h.roster.PatchTeam(ctx, v.TeamID, service.TeamPatch{JoinApprovalRequired: &required})
		return v.TeamID, err
	})
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	web.Redirect(w, r, "/app/settings#joining")
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

// activityView is the activity log with its filters.
type activityView struct {
	Entries          []domain.Activity
	Prev, Next       string
	MemberID, Action string
	Staff            []service.MemberView // the people to filter by
	Actions          []string
	Zone             string
	CSV              string // the export of what is filtered
}

// activityFilter is the log's query.
func activityFilter(r *http.Request, limit int) (domain.ActivityFilter, url.Values) {
	q := r.URL.Query()
	f := domain.ActivityFilter{MemberID: q.Get("member_id"), Action: q.Get("action"), Limit: limit, Offset: web.Offset(r)}
	keep := url.Values{}
	if f.MemberID != "" {
		keep.Set("member_id", f.MemberID)
	}
	if f.Action != "" {
		keep.Set("action", f.Action)
	}
	return f, keep
}

func activityLink(path string, q url.Values, off int) string {
	q2 := url.Values{}
	for k, v := range q {
		q2[k] = v
	}
	if off > 0 {
		q2.Set("offset", strconv.Itoa(off))
	}
	if len(q2) == 0 {
		return path
	}
	return path + "?" + q2.Encode()
}

// activityShow is GET /app/settings/activity: every dashboard write,
// newest first, with who did it, filtered by person and action.
func (h *handler) activityShow(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	ctx := r.Context()
	f, keep := activityFilter(r, settingsPage)
	es, err := h.signIn.ActivityLog(ctx, v.TeamID, f)
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	staff, err := h.roster.ListMembers(ctx, v.TeamID, domain.MemberFilter{Staff: true, Limit: maxGroups})
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	actions, err := h.signIn.ActivityActions(ctx, v.TeamID)
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	av := activityView{Entries: es[:min(len(es), settingsPage)], Zone: v.TimeZone, MemberID: f.MemberID, Action: f.Action,
		Staff: staff, Actions: actions, CSV: activityLink("/app/settings/activity.csv", keep, 0)}
	if f.Offset > 0 {
		av.Prev = activityLink("/app/settings/activity", keep, max(f.Offset-settingsPage, 0))
	}
	if len(es) > settingsPage {
		av.Next = activityLink("/app/settings/activity", keep, f.Offset+settingsPage)
	}
	h.shell.Render(w, r, h.t["activity"], http.StatusOK, "Activity", av)
}

// activityExport is the most entries one CSV export holds (the log keeps
// a year: RETENTION_ACTIVITY, docs/CONFIGURATION.md).
const activityExport = 100000

// activityCSV is GET /app/settings/activity.csv: the filtered log as CSV.
func (h *handler) activityCSV(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	f, _ := activityFilter(r, activityExport)
	f.Offset = 0
	es, err := h.signIn.ActivityLog(r.Context(), v.TeamID, f)
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="activity.csv"`)
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"time", "person", "member_id", "action", "object", "client_ip"})
	for _, e := range es[:min(len(es), activityExport)] {
		_ = cw.Write([]string{e.CreatedAt.UTC().Format(time.RFC3339), e.MemberName, e.MemberID, e.Action, e.Object, e.ClientIP})
	}
	cw.Flush()
}

func settingsPerm() web.Permission { return web.Permission(rosterapi.PermSettings) }
