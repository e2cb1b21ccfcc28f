package web

import (
	"context"
	"net/http"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/web"
)

// keywordsView is Settings › Keywords: the team's keywords, each a form
// to change or delete it, and a form to add one.
type keywordsView struct {
	Keywords []keywordRow
	Groups   []rosterapi.GroupChoice
	Limit    int
	// the add form's values after a refusal
	Keyword, Reply, GroupID string
	Err                     string
	Saved                   bool
}

// keywordRow is a keyword as its row shows it.
type keywordRow struct {
	domain.TeamKeyword
	GroupName string // "" when none (or the group is gone)
}

func (h *handler) keywordsView(ctx context.Context, v *web.Viewer) (*keywordsView, error) {
	ks, err := h.svc.Keywords.Keywords(ctx, v.TeamID, domain.KeywordLimit, 0)
	if err != nil {
		return nil, err
	}
	gs, err := h.svc.Groups.GroupChoices(ctx, v.TeamID)
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(gs))
	for _, g := range gs {
		names[g.ID] = g.Name
	}
	kv := &keywordsView{Groups: gs, Limit: domain.KeywordLimit}
	for _, k := range ks[:min(len(ks), domain.KeywordLimit)] {
		kv.Keywords = append(kv.Keywords, keywordRow{TeamKeyword: k, GroupName: names[k.GroupID]})
	}
	return kv, nil
}

// keywordsShow is GET /app/settings/keywords.
func (h *handler) keywordsShow(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	kv, err := h.keywordsView(r.Context(), v)
	if kv != nil {
		kv.Saved = r.URL.Query().Get("saved") == "1"
	}
	h.show(w, r, h.keywords, "Keywords", kv, err)
}

// keywordsRefused shows a refused write on the page, the add form keeping
// what was typed when it was an add.
func (h *handler) keywordsRefused(w http.ResponseWriter, r *http.Request, v *web.Viewer, err error, add *inbound.KeywordInput) {
	h.refuse(w, r, err, func(status int, msg string) {
		kv, err := h.keywordsView(r.Context(), v)
		if err != nil {
			h.shell.Fail(w, r, err)
			return
		}
		if add != nil {
			kv.Keyword, kv.Reply, kv.GroupID = add.Keyword, add.Reply, add.GroupID
		}
		kv.Err = msg
		h.shell.Render(w, r, h.keywords, status, "Keywords", kv)
	})
}

// keywordCreate is POST /app/settings/keywords: Add keyword.
func (h *handler) keywordCreate(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	in := inbound.KeywordInput{Keyword: r.PostFormValue("keyword"), Reply: r.PostFormValue("reply"), GroupID: r.PostFormValue("group_id")}
	err := h.shell.Do(r.Context(), r, v, "added keyword", func(ctx context.Context) (string, error) {
		k, err := h.svc.Keywords.CreateKeyword(ctx, v.TeamID, in)
		if err != nil {
			return "", err
		}
		return k.ID, nil
	})
	if err != nil {
		h.keywordsRefused(w, r, v, err, &in)
		return
	}
	web.Redirect(w, r, "/app/settings/keywords?saved=1")
}

// keywordSave is POST /app/settings/keywords/{keyword_id}: Save, the
// row's three fields as the form has them ("" group: none).
func (h *handler) keywordSave(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	id := r.PathValue("keyword_id")
	word, reply, group := r.PostFormValue("keyword"), r.PostFormValue("reply"), r.PostFormValue("group_id")
	err := h.shell.Do(r.Context(), r, v, "changed keyword", func(ctx context.Context) (string, error) {
		_, err := h.svc.Keywords.UpdateKeyword(ctx, v.TeamID, id, inbound.KeywordPatch{Keyword: &word, Reply: &reply, GroupID: &group})
		return id, err
	})
	if err != nil {
		h.keywordsRefused(w, r, v, err, nil)
		return
	}
	web.Redirect(w, r, "/app/settings/keywords?saved=1")
}

// keywordDelete is POST /app/settings/keywords/{keyword_id}/delete.
func (h *handler) keywordDelete(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	id := r.PathValue("keyword_id")
	err := h.shell.Do(r.Context(), r, v, "deleted keyword", func(ctx context.Context) (string, error) {
		return id, h.svc.Keywords.DeleteKeyword(ctx, v.TeamID, id)
	})
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	web.Redirect(w, r, "/app/settings/keywords")
}
