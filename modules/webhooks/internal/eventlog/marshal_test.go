package eventlog_test

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	segjson "github.com/segmentio/encoding/json"

	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/webhooks/internal/eventlog"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/httpapi/jsontest"
)

// The data types the codebase publishes, each its contract's own type:
// roster's member.* data is map[string]any{"member": rosterapi.MemberObject};
// messaging's message.received is messagingapi.Received (with *MemberRef)
// and message.status messagingapi.StatusPayload; webhook.test is
// map[string]string.

// stdBody is the envelope's body as encoding/json writes it: what every
// body was before eventlog.Marshal moved to segmentio.
func stdBody(t *testing.T, env events.Envelope) ([]byte, error) {
	t.Helper()
	type wire struct {
		ID        string      `json:"id"`
		Type      string      `json:"type"`
		CreatedAt string      `json:"created_at"`
		Team      events.Team `json:"team"`
		Data      any         `json:"data"`
	}
	return json.Marshal(wire{ID: env.ID, Type: env.Type, CreatedAt: env.CreatedAt.UTC().Format(events.TimeFormat), Team: env.Team, Data: env.Data})
}

func requireSameBody(t *testing.T, kinds *eventlog.Kinds, env events.Envelope) {
	t.Helper()
	want, errWant := stdBody(t, env)
	got, errGot := eventlog.Marshal(env)
	again, _ := kinds.Append(nil, env) // the types already seen
	require.Equal(t, string(got), string(again))
	if errWant != nil {
		require.EqualError(t, errGot, errWant.Error())
		return
	}
	require.NoError(t, errGot)
	require.Equal(t, string(want), string(got))
}

// durationKey is a map key with its own MarshalText.
type durationKey string

func (k durationKey) MarshalText() ([]byte, error) { return []byte("k:" + string(k)), nil }

// edgeStrings are every byte 0–255, HTML, the separators, invalid UTF-8
// and surrogates' bytes, and random strings of all of those.
func edgeStrings() []string {
	out := []string{"", jsontest.EveryByte(), "<script>a & b</script>", "\u2028\u2029", "\xed\xa0\x80", "\xf4\x90\x80\x80", "a\xc3",
		"\ufeff\ufffd\x7f", "日本語 🎉", `"quoted" \back\slash/`, "+15550100"}
	rng := rand.New(rand.NewPCG(15, 20))
	for range 500 {
		out = append(out, jsontest.Random(rng))
	}
	return out
}

// TestMarshalByteIdentical: eventlog.Marshal writes encoding/json's bytes
// (they are stored, signed and sent to webhooks) for every data type
// published, with every class of character in every string, nil and set
// pointers, nil and empty slices and maps, and created_at in any zone; and
// for data segmentio encodes differently (a time.Duration, a MarshalJSON
// or MarshalText of its own, in an interface or not), it still writes
// encoding/json's bytes, and fails where encoding/json fails, with its
// error.
func TestMarshalByteIdentical(t *testing.T) {
	t.Parallel()
	kinds := &eventlog.Kinds{}
	at := time.Date(2026, 11, 24, 12, 0, 0, 123456789, time.UTC)
	zones := []time.Time{at, {}, time.Date(2026, 1, 2, 3, 4, 5, 999999999, time.FixedZone("X", -5*3600-30*60)), time.Unix(0, 0), time.Date(9999, 12, 31, 23, 59, 59, 1000, time.UTC)}
	for i, s := range edgeStrings() {
		kw, group := s, "grp_"+s
		var member *messagingapi.MemberRef
		if i%2 == 0 {
			member = &messagingapi.MemberRef{ID: "mem_" + s, Name: s, Role: s}
		} else {
			kw, group = "", ""
		}
		var kwp, groupp *string
		if kw != "" {
			kwp, groupp = &kw, &group
		}
		for _, data := range []any{
			map[string]any{"member": rosterapi.MemberObject{ID: "mem_1", Name: s, Phone: s, Email: s, Role: s, Status: s, IsBlocked: i%2 == 0,
				CreatedAt: at.Add(time.Duration(i) * time.Nanosecond).Format(time.RFC3339Nano)}},
			messagingapi.Received{MessageID: s, ProviderMessageID: s, From: s, To: s, Body: s, Keyword: kwp, GroupID: groupp, Member: member, ReceivedAt: s},
			&messagingapi.Received{Body: s},
			messagingapi.StatusPayload{MessageID: s, DeliveryID: s, ProviderMessageID: s, To: s, Status: s, CarrierStatus: s, ErrorCode: s, ErrorMessage: s, UpdatedAt: s},
			map[string]string{"message": s},
			map[string]string{s: s, "a" + s: "b"},
		} {
			requireSameBody(t, kinds, events.Envelope{ID: "evt_" + s, Type: s, CreatedAt: zones[i%len(zones)], Team: events.Team{ID: s, Code: s}, Data: data})
		}
	}

	for _, data := range []any{
		nil, []string(nil), []string{}, map[string]string(nil), map[string]string{}, map[string]any{}, map[string]any(nil),
		[]any{nil, true, "x", 3, []int(nil), map[string]any{"b": nil, "a": []any{}}}, (*messagingapi.Received)(nil), map[string]any{"member": (*rosterapi.MemberObject)(nil)},
		[]int{1}, 1.5, []float64{0, -0.0, 1e21, 1e-7, 3.0000000000000004},
		// Kinds segmentio encodes otherwise: left to encoding/json.
		time.Second, map[string]any{"d": time.Second}, []any{"x", time.Minute}, struct{ D time.Duration }{time.Hour},
		json.RawMessage(` {"a" : 1} `), map[string]any{"raw": json.RawMessage(` [1, 2] `)}, map[durationKey]int{"a": 1},
		map[string]any{"m": map[durationKey]int{"b": 2}}, struct{ A any }{time.Second},
		// Failures fail alike.
		math.NaN(), map[string]any{"f": math.Inf(1)}, make(chan int),
	} {
		requireSameBody(t, kinds, events.Envelope{ID: "evt_1", Type: events.WebhookTest, CreatedAt: at, Team: events.Team{ID: "t", Code: "C"}, Data: data})
	}

	// Those kinds do come out differently from segmentio: the guard is
	// what keeps them identical.
	for _, v := range []any{time.Second, map[durationKey]int{"a": 1}} {
		std, errStd := json.Marshal(v)
		seg, errSeg := segjson.Marshal(v)
		require.True(t, errStd != nil || errSeg != nil || string(std) != string(seg), "%T: %s", v, seg)
	}
}

// TestPublishTeamsBodiesByteIdentical: PublishTeams, which encodes every
// body of a batch in one reused buffer, stores each event's own body,
// encoding/json's bytes of its envelope.
func TestPublishTeamsBodiesByteIdentical(t *testing.T) {
	e := newEnv(t)
	strs := edgeStrings()[:50]
	evs := make([]events.Event, len(strs))
	for i, s := range strs {
		evs[i] = events.Event{TeamID: []string{"api", "basic"}[i%2], Type: events.MemberJoined,
			Data: map[string]any{"member": rosterapi.MemberObject{ID: "mem_" + s, Name: s, Phone: "+1555010" + string(rune('0'+i%10))}}}
		if i%5 == 0 {
			evs[i].Data = map[string]any{"d": time.Duration(i)} // encoding/json's path in the same batch
		}
	}
	require.NoError(t, e.tx(t, func(ctx context.Context) error { return e.log.PublishTeams(ctx, evs) }))
	require.Len(t, e.store.events, len(evs))
	for i, stored := range e.store.events {
		tm, err := e.teams.Team(context.Background(), evs[i].TeamID)
		require.NoError(t, err)
		want, err := stdBody(t, events.Envelope{ID: stored.ID, Type: stored.Type, CreatedAt: stored.CreatedAt,
			Team: events.Team{ID: tm.ID, Code: tm.Code}, Data: evs[i].Data})
		require.NoError(t, err)
		require.Equal(t, string(want), stored.Body, "event %d", i)
	}
}

// BenchmarkMarshal: one member.joined body, as an import publishes per
// row: appended to the batch's buffer, then copied into the event's Body.
func BenchmarkMarshal(b *testing.B) {
	env := events.Envelope{ID: "evt_01JDZ3Q9X8K7M6N5P4R3S2T1V0", Type: events.MemberJoined, CreatedAt: now,
		Team: events.Team{ID: "team_01JDZ3Q9X8K7M6N5P4R3S2T1V0", Code: "ABC123"},
		Data: map[string]any{"member": rosterapi.MemberObject{ID: "mem_01JDZ3Q9X8K7M6N5P4R3S2T1V0", Name: "Jamie O'Neil", Phone: "+15550101234",
			Email: "jamie@example.com", Role: "athlete", Status: "active", CreatedAt: now.UTC().Format(time.RFC3339Nano)}}}
	k := &eventlog.Kinds{} // as the Log keeps one
	var buf []byte
	var body string
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = k.Append(buf[:0], env); err != nil {
			b.Fatal(err)
		}
		body = string(buf)
	}
	require.NotEmpty(b, body)
}
