package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
)

// plans records what the service asks the engine to plan.
type plans struct {
	planner
	got []outbound.SendPlan
}

func (p *plans) Plan(_ context.Context, sp outbound.SendPlan) (outbound.Planned, error) {
	p.got = append(p.got, sp)
	return outbound.Planned{Finish: p.done}, nil
}

// An urgent alert is planned as urgent (ahead of the team's queued texts,
// package outbound); any other send is not.
func TestDispatchPlansUrgentAlertsAhead(t *testing.T) {
	t.Parallel()
	for _, urgent := range []bool{true, false} {
		w := newSendWorld(t)
		rec := &plans{planner: planner{done: t0.Add(time.Minute)}}
		w.svc.Outbound = rec
		in := practice
		in.Urgent = urgent
		out, err := w.svc.Send(context.Background(), service.Sender{TeamID: "team_1", MemberID: "mem_hc", Source: domain.SourceDashboard}, in)
		require.NoError(t, err)
		require.Equal(t, urgent, out.Message.Urgent)
		require.Len(t, rec.got, 1)
		require.Equal(t, urgent, rec.got[0].Urgent)
		require.Equal(t, out.Message.ID, rec.got[0].MessageID)
	}
}
