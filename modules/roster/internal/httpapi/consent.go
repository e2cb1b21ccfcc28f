package httpapi

import (
	"context"

	"github.com/teamtext/teamtext/modules/roster/internal/httpapi/view"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// memberConsentBody is the answer: data and the history's pagination.
type memberConsentBody struct {
	Data       view.MemberConsent `json:"data"`
	Pagination httpapi.Pagination `json:"pagination"`
}

func (h *handler) getMemberConsent(ctx context.Context, in *struct {
	MemberID string `path:"member_id"`
	httpapi.PageParams
}) (*struct{ Body memberConsentBody }, error) {
	v, err := h.svc.MemberConsent(ctx, auth.MustPrincipal(ctx).TeamID, in.MemberID, in.Limit, in.Offset)
	if err != nil {
		return nil, err
	}
	page, pg := httpapi.Page(in.PageParams, v.History)
	out := view.MemberConsent{MemberID: v.Member.ID, Phone: v.Member.Phone, Consent: view.ConsentFrom(v.Member.MemberConsent), History: make([]view.ConsentEvent, len(page))}
	for i := range page {
		out.History[i] = view.ConsentEventFrom(&page[i])
	}
	return &struct{ Body memberConsentBody }{Body: memberConsentBody{Data: out, Pagination: pg}}, nil
}
