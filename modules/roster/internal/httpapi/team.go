package httpapi

import (
	"context"

	"github.com/teamtext/teamtext/modules/roster/internal/httpapi/view"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/httpapi"
)

func (h *handler) getTeam(ctx context.Context, _ *struct{}) (*httpapi.DataOutput[view.Team], error) {
	p := auth.MustPrincipal(ctx)
	return httpapi.DataOf(view.TeamFrom)(h.svc.TeamViewOf(ctx, p))
}
