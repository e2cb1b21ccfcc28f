package admin

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	rosterhttp "github.com/teamtext/teamtext/modules/roster/internal/httpapi"
	"github.com/teamtext/teamtext/modules/roster/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// registerUndeliverable adds the clearing of issue 18's mark.
func registerUndeliverable(api huma.API, svc *service.Service) {
	httpapi.Register(api, huma.Operation{
		OperationID: "admin-clear-undeliverable", Method: http.MethodDelete, Path: "/teams/{team_id}/members/{member_id}/undeliverable",
		Tags: []string{"Members"}, Summary: "Clear a number's undeliverable mark",
		Description: "The member's number is no longer undeliverable, on every roster entry of the team with it, and its count of permanent failures starts again: " +
			"the next sends text it. Answers the member (undeliverable false). Idempotent: a number that is not marked answers the same. " +
			"404 not_found for a member the team does not have.",
	}, func(ctx context.Context, in *memberPath) (*httpapi.DataOutput[Member], error) {
		v, err := svc.ClearMemberUndeliverable(ctx, in.TeamID, in.MemberID)
		if err != nil {
			return nil, err
		}
		out := memberFrom(&v.Member)
		out.GroupIDs, out.Deliverability = v.GroupIDs, rosterhttp.DeliverabilityFrom(v.UndeliverableSince)
		return httpapi.Data(out), nil
	})
}

// markedMember renders a member with their number's undeliverable mark.
func markedMember(ctx context.Context, svc *service.Service, m *postgres.Member) (Member, error) {
	out := memberFrom(m)
	marks, err := svc.UndeliverableSince(ctx, m.TeamID, m.Phone)
	if err != nil {
		return Member{}, err
	}
	if at, ok := marks[m.Phone]; ok {
		out.Deliverability = rosterhttp.DeliverabilityFrom(&at)
	}
	return out, nil
}

func markedData(ctx context.Context, svc *service.Service, m *postgres.Member) (*httpapi.DataOutput[Member], error) {
	out, err := markedMember(ctx, svc, m)
	if err != nil {
		return nil, err
	}
	return httpapi.Data(out), nil
}
