package inbound_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi/rostertest"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/phone"
)

// pollFiling is memFiling with one open poll for every number in polled,
// counting the poll step's statements.
type pollFiling struct {
	*memFiling
	polled                  map[string]*domain.OpenPoll
	opens, records, setResp int
	answers                 []domain.Response
	answered                map[string]string // text id → poll
}

func (p *pollFiling) OpenPolls(_ context.Context, teams, phones []string, _ []time.Time) ([]*domain.OpenPoll, error) {
	p.opens++
	out := make([]*domain.OpenPoll, len(teams))
	for i := range phones {
		out[i] = p.polled[phones[i]]
	}
	return out, nil
}

func (p *pollFiling) RecordResponses(_ context.Context, rs []domain.Response) ([]int, error) {
	p.records++
	p.answers = append(p.answers, rs...)
	out := make([]int, len(rs))
	for i := range rs {
		out[i] = i
	}
	return out, nil
}

func (p *pollFiling) SetResponseTo(_ context.Context, ids, polls []string) error {
	p.setResp++
	for i := range ids {
		p.answered[ids[i]] = polls[i]
	}
	return nil
}

// countingLookup counts the roster reads of entries by number.
type countingLookup struct {
	*rostertest.Roster
	reads int
}

func (c *countingLookup) MembersByTeamPhones(ctx context.Context, pairs []rosterapi.TeamPhone) (map[rosterapi.TeamPhone][]rosterapi.Member, error) {
	c.reads++
	return c.Roster.MembersByTeamPhones(ctx, pairs)
}

// TestPollStepStatements: the poll step costs the same statements for a
// batch of 3 texts as for one of 90 (one lookup; then one read of the
// senders' entries, one upsert, one response_to update and one batch of
// events), records an answer per roster entry the poll reached (a parent
// on the roster twice answers for both; an entry the poll did not reach
// does not), and leaves texts matching no option and keywords unclaimed.
func TestPollStepStatements(t *testing.T) {
	t.Parallel()
	for _, n := range []int{3, 90} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			r := newRoster(t, clock.NewFake(t0), []rosterapi.Team{{ID: "team_1", Name: "Tigers", Number: teamNumber}})
			store := &pollFiling{memFiling: &memFiling{provided: map[string]bool{}}, polled: map[string]*domain.OpenPoll{}, answered: map[string]string{}}
			var as []inbound.Args
			for i := range n {
				ph := fmt.Sprintf("+1303555%04d", i)
				require.NoError(t, r.AddMember(context.Background(), rosterapi.Member{ID: fmt.Sprint("mem_", i), TeamID: "team_1", Name: "A", Phone: phone.Number(ph), Role: rosterapi.RoleAthlete, Status: "active", CreatedAt: base}))
				recipients := []string{fmt.Sprint("mem_", i)}
				if i == 0 { // a parent of two athletes, and an entry added after the poll
					for _, m := range []rosterapi.Member{
						{ID: "mem_twin", TeamID: "team_1", Name: "B", Phone: phone.Number(ph), Role: rosterapi.RoleAthlete, Status: "active", CreatedAt: base},
						{ID: "mem_new", TeamID: "team_1", Name: "C", Phone: phone.Number(ph), Role: rosterapi.RoleGuardian, Status: "active", CreatedAt: base},
					} {
						require.NoError(t, r.AddMember(context.Background(), m))
					}
					recipients = append(recipients, "mem_twin")
				}
				store.polled[ph] = &domain.OpenPoll{MessageID: "msg_poll", Options: []string{"YES", "NO"}, MemberIDs: recipients}
				body := "yes!"
				switch i {
				case 1:
					body = "what time?"
				case 2:
					body = "STOP"
				}
				as = append(as, inbound.Args{From: ph, To: teamNumber, Body: body, ProviderMessageID: fmt.Sprint("SM", i), ReceivedAt: t0.Add(time.Duration(i) * time.Second)})
			}
			lookup := &countingLookup{Roster: r}
			pub := &announced{}
			svc := inbound.New(inbound.Deps{Tx: inline{}, Store: store, Help: &helped{}, Clock: clock.NewFake(t0), Lookup: lookup,
				Billing: newBilling(t, "team_1"), Events: pub, Log: slog.New(slog.DiscardHandler),
				Deliverability: &cleared{}, Keywords: r})
			require.NoError(t, svc.File(context.Background(), as))

			require.Equal(t, 1, store.opens, "one open-poll lookup")
			require.Equal(t, 1, store.records, "one upsert")
			require.Equal(t, 1, store.setResp, "one response_to update")
			require.Equal(t, 2, lookup.reads, "filing's read of the senders' entries and the poll step's")
			answers := n - 2 // the text matching no option and the STOP are not answers
			require.Len(t, store.answered, answers)
			require.Len(t, store.answers, answers+1, "the parent's number answers for both entries the poll reached")
			var responses []inbound.Response
			for _, ev := range pub.evs {
				if ev.Type == events.MessageResponse {
					responses = append(responses, ev.Data.(inbound.Response))
				}
			}
			require.Len(t, responses, answers+1, "one message.response per answer recorded")
			require.Equal(t, "mem_0", responses[0].Member.ID)
			require.Equal(t, "mem_twin", responses[1].Member.ID)
			for _, rs := range responses {
				require.Equal(t, "YES", rs.Option)
				require.Equal(t, "msg_poll", rs.MessageID)
				require.NotEqual(t, "mem_new", rs.Member.ID)
			}
		})
	}
}
