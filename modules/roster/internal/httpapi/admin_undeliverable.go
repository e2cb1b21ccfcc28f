package httpapi

import (
	"context"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/httpapi/adminview"
	"github.com/teamtext/teamtext/modules/roster/internal/httpapi/view"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// markedMember renders a member with their number's undeliverable mark.
func markedMember(ctx context.Context, svc *service.Service, m *domain.Member) (adminview.Member, error) {
	out := adminview.MemberFrom(m)
	marks, err := svc.UndeliverableSince(ctx, m.TeamID, m.Phone)
	if err != nil {
		return adminview.Member{}, err
	}
	if at, ok := marks[m.Phone]; ok {
		out.Deliverability = view.DeliverabilityFrom(&at)
	}
	return out, nil
}

func markedData(ctx context.Context, svc *service.Service, m *domain.Member) (*httpapi.DataOutput[adminview.Member], error) {
	out, err := markedMember(ctx, svc, m)
	if err != nil {
		return nil, err
	}
	return httpapi.Data(out), nil
}

func (h *handler) adminClearUndeliverable(ctx context.Context, in *teamMemberPath) (*httpapi.DataOutput[adminview.Member], error) {
	v, err := h.svc.ClearMemberUndeliverable(ctx, in.TeamID, in.MemberID)
	if err != nil {
		return nil, err
	}
	out := adminview.MemberFrom(&v.Member)
	out.GroupIDs, out.Deliverability = v.GroupIDs, view.DeliverabilityFrom(v.UndeliverableSince)
	return httpapi.Data(out), nil
}
