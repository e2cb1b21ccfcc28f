package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/teamtext/teamtext/modules/campaigns/internal/domain"
	"github.com/teamtext/teamtext/modules/campaigns/internal/service"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/web"
)

// pageSize is how many campaigns the list shows at a time.
const pageSize = 50

// formSteps is how many step rows the form offers (no script needed);
// empty rows are ignored.
const formSteps = 5

// maxTemplates is how many templates a step's picker lists.
const maxTemplates = 200

// localLayout is an <input type=datetime-local> value.
const localLayout = "2006-01-02T15:04"

// stepForm is one step row as typed.
type stepForm struct {
	N          int    // 1-based, for ids and labels
	Delay      string // minutes after the campaign starts
	At         string // datetime-local, the team's local time
	Text       string
	TemplateID string
	Urgent     bool
}

// empty reports whether the row was left blank (ignored).
func (s stepForm) empty() bool {
	return strings.TrimSpace(s.Text) == "" && s.TemplateID == "" && strings.TrimSpace(s.Delay) == "" && s.At == "" && !s.Urgent
}

// campaignForm is the New campaign form as typed: shown again after a
// refusal so nothing is lost.
type campaignForm struct {
	Name     string
	Audience string // all, staff, families, or "group:" + the group's id
	Steps    []stepForm
}

func blankForm() campaignForm {
	f := campaignForm{Audience: string(messagingapi.AudienceAll)}
	for i := 1; i <= formSteps; i++ {
		f.Steps = append(f.Steps, stepForm{N: i})
	}
	return f
}

func readForm(r *http.Request) campaignForm {
	f := campaignForm{Name: r.PostFormValue("name"), Audience: r.PostFormValue("audience")}
	for i := 1; i <= formSteps; i++ {
		p := fmt.Sprintf("step%d_", i)
		f.Steps = append(f.Steps, stepForm{N: i, Delay: strings.TrimSpace(r.PostFormValue(p + "delay")),
			At: strings.TrimSpace(r.PostFormValue(p + "at")), Text: r.PostFormValue(p + "text"),
			TemplateID: r.PostFormValue(p + "template"), Urgent: r.PostFormValue(p+"urgent") != ""})
	}
	return f
}

// input is the form as the create use case takes it: delays in seconds,
// times read in the team's zone, an urgent-alert template making its step
// urgent, the audience split into audience and group.
func (f campaignForm) input(v *web.Viewer, urgentTemplates map[string]bool) (service.NewCampaign, error) {
	in := service.NewCampaign{TeamID: v.TeamID, MemberID: v.MemberID, Dashboard: true, Name: f.Name, Audience: f.Audience}
	if g, ok := strings.CutPrefix(f.Audience, "group:"); ok {
		in.Audience, in.GroupID = string(messagingapi.AudienceGroup), g
	}
	loc, err := time.LoadLocation(v.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	for _, s := range f.Steps {
		if s.empty() {
			continue
		}
		st := domain.StepInput{Text: s.Text, TemplateID: s.TemplateID, Urgent: s.Urgent || urgentTemplates[s.TemplateID]}
		switch {
		case s.Delay != "" && s.At != "":
			return in, fault.Invalidf("Step %d: give a delay or a time, not both.", s.N)
		case s.At != "":
			at, err := time.ParseInLocation(localLayout, s.At, loc)
			if err != nil {
				return in, fault.Invalidf("Step %d: Send at must be a date and a time.", s.N)
			}
			st.SendAt = at.Format(time.RFC3339)
		case s.Delay != "":
			m, err := strconv.ParseInt(s.Delay, 10, 64)
			if err != nil || m < 0 || m > int64(domain.MaxAhead/time.Minute) {
				return in, fault.Invalidf("Step %d: the delay is a whole number of minutes, 0 to %d.", s.N, int64(domain.MaxAhead/time.Minute))
			}
			d := m * 60
			st.DelaySeconds = &d
		default:
			return in, fault.Invalidf("Step %d: give a delay in minutes or a time to send it.", s.N)
		}
		in.Steps = append(in.Steps, st)
	}
	if len(in.Steps) == 0 {
		return in, fault.Invalidf("Add at least one step: a text or a template, with a delay or a time.")
	}
	return in, nil
}

// row is a campaign as the pages show it, with what the viewer may do to it.
type row struct {
	service.View
	Pause, Resume, Cancel bool
}

// HasUrgent reports whether a step is an urgent alert.
func (r row) HasUrgent() bool { return domain.HasUrgent(r.Steps) }

// rowOf is v with the actions its status allows and the viewer may take:
// a campaign with an urgent step only for those who may send urgent alerts.
func rowOf(v service.View, viewer *web.Viewer) row {
	may := !v.HasUrgent() || viewer.May(perm(rosterapi.PermUrgent))
	st := v.Campaign.Status
	return row{View: v, Pause: may && st == domain.StatusScheduled, Resume: may && st == domain.StatusPaused,
		Cancel: may && (st == domain.StatusScheduled || st == domain.StatusPaused)}
}

// pager is the list's links to its neighbours.
type pager struct{ Prev, Next string }

// listView is the Campaigns page.
type listView struct {
	Rows      []row
	Page      pager
	Form      campaignForm
	Groups    []rosterapi.GroupChoice
	Templates []messagingapi.TemplateChoice
	Urgent    bool // the viewer may make urgent steps
	Err       string
	Zone      string
}

func (h *handler) listView(ctx context.Context, r *http.Request, v *web.Viewer, f campaignForm) (*listView, error) {
	off := web.Offset(r)
	cs, err := h.d.Campaigns.TeamCampaigns(ctx, v.TeamID, pageSize, off)
	if err != nil {
		return nil, err
	}
	lv := &listView{Form: f, Urgent: v.May(perm(rosterapi.PermUrgent)), Zone: v.TimeZone}
	for _, c := range cs[:min(len(cs), pageSize)] {
		lv.Rows = append(lv.Rows, rowOf(c, v))
	}
	if off > 0 {
		lv.Page.Prev = "/app/campaigns?offset=" + strconv.Itoa(max(0, off-pageSize))
	}
	if len(cs) > pageSize {
		lv.Page.Next = "/app/campaigns?offset=" + strconv.Itoa(off+pageSize)
	}
	if lv.Groups, err = h.d.Groups.GroupChoices(ctx, v.TeamID); err != nil {
		return nil, err
	}
	ts, err := h.d.Templates.TemplateChoices(ctx, v.TeamID, maxTemplates)
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		if !t.Urgent || lv.Urgent {
			lv.Templates = append(lv.Templates, t)
		}
	}
	return lv, nil
}

// campaignsList is GET /app/campaigns: the team's campaigns, newest first,
// each with its steps' states and actions, and the New campaign form.
func (h *handler) campaignsList(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	lv, err := h.listView(r.Context(), r, v, blankForm())
	h.show(w, r, h.list, "Campaigns", lv, err)
}

// campaignCreate is POST /app/campaigns: the same use case as the admin
// API's creation, acting as the signed-in person. An urgent step (or an
// urgent-alert template) needs the right to send urgent alerts (403).
func (h *handler) campaignCreate(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	ctx := r.Context()
	f := readForm(r)
	urgentTemplates := map[string]bool{}
	ts, err := h.d.Templates.TemplateChoices(ctx, v.TeamID, maxTemplates)
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	for _, t := range ts {
		urgentTemplates[t.ID] = t.Urgent
	}
	in, err := f.input(v, urgentTemplates)
	var created string
	if err == nil {
		err = h.shell.Do(ctx, r, v, "created campaign", func(ctx context.Context) (string, error) {
			c, err := h.d.Campaigns.Create(ctx, in)
			if err != nil {
				return "", err
			}
			created = c.Campaign.ID
			return created, nil
		})
	}
	if err != nil {
		status, msg := web.Refusal(err)
		if status == http.StatusInternalServerError {
			h.shell.Fail(w, r, err)
			return
		}
		lv, verr := h.listView(ctx, r, v, f)
		if verr != nil {
			h.shell.Fail(w, r, verr)
			return
		}
		lv.Err = msg
		h.shell.Render(w, r, h.list, status, "Campaigns", lv)
		return
	}
	web.Redirect(w, r, "/app/campaigns/"+url.PathEscape(created))
}

// campaignView is one campaign's page.
type campaignView struct {
	Row  row
	Err  string
	Zone string
}

// campaignShow is GET /app/campaigns/{campaign_id}.
func (h *handler) campaignShow(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	c, err := h.d.Campaigns.Campaign(r.Context(), v.TeamID, r.PathValue("campaign_id"))
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	h.shell.Render(w, r, h.campaign, http.StatusOK, c.Campaign.Name, campaignView{Row: rowOf(*c, v), Zone: v.TimeZone})
}

// action is Pause, Resume or Cancel.
type action struct {
	activity string
	run      func(s *service.Service, ctx context.Context, teamID, id string) (*service.View, error)
}

var (
	actionPause = action{"paused campaign", func(s *service.Service, ctx context.Context, teamID, id string) (*service.View, error) {
		return s.Pause(ctx, teamID, id)
	}}
	// actionResume resumes as the dashboard: a campaign with an urgent
	// step is resumable here (spec §3), by those who may send urgent
	// alerts (checked before, as for the other actions).
	actionResume = action{"resumed campaign", func(s *service.Service, ctx context.Context, teamID, id string) (*service.View, error) {
		return s.Resume(ctx, teamID, id, true)
	}}
	actionCancel = action{"cancelled campaign", func(s *service.Service, ctx context.Context, teamID, id string) (*service.View, error) {
		return s.Cancel(ctx, teamID, id)
	}}
)

// errUrgentCampaign refuses a campaign with an urgent step to those who
// may not send urgent alerts (DASHBOARD.md: campaigns, "not urgent").
var errUrgentCampaign = fault.New(fault.Forbidden, fault.CodeForbidden,
	"This campaign has an urgent-alert step: only a head coach or team director may pause, resume or cancel it.")

// campaignAction is POST /app/campaigns/{campaign_id}/{pause,resume,cancel}:
// back to the list or the campaign's page (next), or that page with the
// refusal (409 for the wrong state, 403 for an urgent campaign).
func (h *handler) campaignAction(a action) func(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	return func(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
		ctx := r.Context()
		id := r.PathValue("campaign_id")
		c, err := h.d.Campaigns.Campaign(ctx, v.TeamID, id)
		if err != nil {
			h.shell.Fail(w, r, err)
			return
		}
		if c.HasUrgent() && !v.May(perm(rosterapi.PermUrgent)) {
			err = errUrgentCampaign
		} else {
			err = h.shell.Do(ctx, r, v, a.activity, func(ctx context.Context) (string, error) {
				_, err := a.run(h.d.Campaigns, ctx, v.TeamID, id)
				return id, err
			})
		}
		if err != nil {
			h.refuse(w, r, err, func(status int, msg string) {
				c, err := h.d.Campaigns.Campaign(ctx, v.TeamID, id)
				if err != nil {
					h.shell.Fail(w, r, err)
					return
				}
				h.shell.Render(w, r, h.campaign, status, c.Campaign.Name, campaignView{Row: rowOf(*c, v), Err: msg, Zone: v.TimeZone})
			})
			return
		}
		if r.PostFormValue("next") == "list" {
			web.Redirect(w, r, "/app/campaigns")
			return
		}
		web.Redirect(w, r, "/app/campaigns/"+url.PathEscape(id))
	}
}
