package e2e

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/fakes/bandwidthtest"
	"github.com/teamtext/teamtext/modules/messaging/fakes/fakecarrier"
	"github.com/teamtext/teamtext/modules/messaging/fakes/telnyxtest"
	"github.com/teamtext/teamtext/modules/messaging/fakes/twiliotest"
)

// carrierAccount is the admin API's view of a carrier account.
type carrierAccount struct {
	ID       string  `json:"id"`
	Provider string  `json:"provider"`
	Name     string  `json:"name"`
	Default  bool    `json:"default"`
	APIURL   *string `json:"api_url"`
}

// secretsKeyEnv is SECRETS_KEY set to a fresh random key.
func secretsKeyEnv(t testing.TB) string {
	t.Helper()
	key := make([]byte, 32)
	_, err := rand.Read(key)
	require.NoError(t, err)
	return "SECRETS_KEY=" + base64.StdEncoding.EncodeToString(key)
}

// twilioDefaultEnv is the environment of a service whose default carrier
// account is the fake Twilio tw and which tells carriers to call back on
// base, with SECRETS_KEY set for the accounts added through the admin API.
func twilioDefaultEnv(t testing.TB, tw *twiliotest.Server, base string) []string {
	return []string{"CARRIER=twilio", "TWILIO_ACCOUNT_SID=" + tw.AccountSID, "TWILIO_AUTH_TOKEN=" + tw.AuthToken,
		"TWILIO_API_URL=" + tw.URL, "PUBLIC_BASE_URL=" + base, secretsKeyEnv(t)}
}

// telnyxAccount is the admin API's body creating a carrier account named
// name for the fake Telnyx tel.
func telnyxAccount(name string, tel *telnyxtest.Server) map[string]any {
	return map[string]any{"provider": "telnyx", "name": name, "api_url": tel.URL,
		"credentials": map[string]string{"api_key": tel.APIKey, "public_key": tel.PublicKey(), "messaging_profile_id": tel.ProfileID}}
}

// bandwidthAccount is the admin API's body creating a carrier account
// named name for the fake Bandwidth bw.
func bandwidthAccount(name string, bw *bandwidthtest.Server) map[string]any {
	return map[string]any{"provider": "bandwidth", "name": name, "api_url": bw.URL,
		"credentials": map[string]string{"account_id": bw.AccountID, "username": bw.Username, "password": bw.Password,
			"application_id": bw.ApplicationID, "callback_username": bw.CallbackUsername, "callback_password": bw.CallbackPassword}}
}

// flushEvery posts the fakes' pending callbacks every interval until the
// test ends: carriers report while the broadcast goes on.
func flushEvery(t testing.TB, interval time.Duration, flush ...func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				for _, f := range flush {
					if err := f(ctx); err != nil && ctx.Err() == nil {
						t.Logf("carrier callback: %v", err)
					}
				}
			}
		}
	}()
}

// TestThreeCarriersOnTwoNodes: a deployment whose default account is
// Twilio (CARRIER=twilio) adds a Telnyx and a Bandwidth account; three
// teams, one per account, broadcast at once on two nodes. Each number's
// texts reach its own carrier's fake at no more than its throughput in any
// second, every delivery ends delivered from that carrier's callbacks, and
// no credential appears in any answer or log line.
func TestThreeCarriersOnTwoNodes(t *testing.T) {
	t.Parallel()
	const (
		base       = "https://teamtext.example.test"
		sid        = "AC0123456789abcdef0123456789abcdef"
		token      = "twiliothreecarriers0123456789abc"
		telKey     = "KEYtelnyxThreeCarriersSecret"
		bwPass     = "bandwidthApiPasswordSecret"
		bwCBPass   = "bandwidthCallbackPasswordSecret"
		members    = 24
		recipients = members + 1
		perSecond  = 4
	)
	tw := twiliotest.NewServer(t, sid, token)
	tel := telnyxtest.NewServer(t, telKey, "prof-three")
	bw := bandwidthtest.NewServer(t, "9900123", "bw-user", bwPass, "bw-app", "bw-cb", bwCBPass)

	p := newPacingEnv(t, "three_carriers", 2, twilioDefaultEnv(t, tw, base)...)
	toNode := func(u string) string { return strings.Replace(u, base, p.nodes[1].PublicURL, 1) }
	tw.Rewrite, tel.Rewrite = toNode, toNode
	ctx := context.Background()

	var created []carrierAccount
	for _, body := range []map[string]any{telnyxAccount("Club Telnyx", tel), bandwidthAccount("Club Bandwidth", bw)} {
		r, err := p.admin.Do(ctx, "POST", "/carrier-accounts", body)
		require.NoError(t, err)
		require.Equal(t, 201, r.Status, string(r.Body))
		for _, secret := range []string{telKey, bwPass, bwCBPass} {
			require.NotContains(t, string(r.Body), secret, "credentials are never returned")
		}
		var a carrierAccount
		require.NoError(t, r.Data(&a))
		created = append(created, a)
	}
	bw.CallbackURL = p.nodes[0].PublicURL + "/carrier/bandwidth/" + created[1].ID

	var list []carrierAccount
	require.NoError(t, p.admin.Expect(ctx, 200, "GET", "/carrier-accounts", nil, &list))
	require.Len(t, list, 3)
	require.True(t, list[0].Default)
	require.Equal(t, "twilio", list[0].Provider)
	require.Equal(t, []string{"telnyx", "bandwidth"}, []string{list[1].Provider, list[2].Provider})

	// Team 0 stays on the default (Twilio); 1 moves to Telnyx, 2 to Bandwidth.
	teams := []paced{p.team(t, 0, 71, members, perSecond), p.team(t, 1, 72, members, perSecond), p.team(t, 0, 73, members, perSecond)}
	for i, a := range created {
		var n struct {
			CarrierAccountID string `json:"carrier_account_id"`
		}
		tm := teams[i+1]
		require.NoError(t, p.admin.Expect(ctx, 200, "PATCH", "/teams/"+tm.TeamID+"/numbers/"+tm.numberID,
			map[string]any{"carrier_account_id": a.ID}, &n))
		require.Equal(t, a.ID, n.CarrierAccountID)
	}
	r, err := p.admin.Do(ctx, "PATCH", "/teams/"+teams[0].TeamID+"/numbers/"+teams[0].numberID, map[string]any{"carrier_account_id": "cac_nope"})
	require.NoError(t, err)
	require.Equal(t, 400, r.Status, string(r.Body))
	r, err = p.admin.Do(ctx, "DELETE", "/carrier-accounts/"+created[0].ID, nil)
	require.NoError(t, err)
	require.Equal(t, 409, r.Status, "a number uses it")

	flushEvery(t, 100*time.Millisecond, tw.Flush, tel.Flush, bw.Flush)
	var msgs []sendResult
	for _, tm := range teams {
		m, _ := broadcast(t, tm.api, "Tournament bus leaves 7:15 from the north lot")
		require.Equal(t, recipients, m.Recipients, "the members and the head coach")
		msgs = append(msgs, m)
	}
	for i, m := range msgs {
		waitFor(t, 90*time.Second, func() bool { return deliveries(t, p.url, m.ID, "delivered") == recipients })
		require.Zero(t, deliveries(t, p.url, m.ID, "failed"), "team %d", i)
	}

	var twAt, telAt, bwAt []time.Time
	for _, m := range tw.Messages() {
		require.Equal(t, teams[0].number, m.From)
		twAt = append(twAt, m.At)
	}
	for _, m := range tel.Messages() {
		require.Equal(t, teams[1].number, m.From)
		telAt = append(telAt, m.At)
	}
	for _, m := range bw.Messages() {
		require.Equal(t, teams[2].number, m.From)
		bwAt = append(bwAt, m.At)
	}
	require.Len(t, twAt, recipients, "team 0's texts went to Twilio only")
	require.Len(t, telAt, recipients, "team 1's texts went to Telnyx only")
	require.Len(t, bwAt, recipients, "team 2's texts went to Bandwidth only")
	for name, at := range map[string][]time.Time{"twilio": twAt, "telnyx": telAt, "bandwidth": bwAt} {
		require.LessOrEqual(t, fakecarrier.BusiestSecond(at), perSecond, "%s: a number never gets more than its throughput in a second", name)
	}

	// A refused callback: Bandwidth with wrong credentials, Telnyx forged.
	err = bw.Post(ctx, []byte(`[]`), "bw-cb", "wrong")
	var bwErr *bandwidthtest.HTTPError
	require.ErrorAs(t, err, &bwErr)
	require.Equal(t, 403, bwErr.Status)
	forger := telnyxtest.NewServer(t, telKey, "prof-three")
	_, err = forger.Inbound(ctx, p.nodes[0].PublicURL+"/carrier/telnyx/"+created[0].ID, "+12025550199", teams[1].number, "forged")
	var telErr *telnyxtest.HTTPError
	require.ErrorAs(t, err, &telErr)
	require.Equal(t, 403, telErr.Status)

	for i, n := range p.nodes {
		logs := n.Logs()
		for _, secret := range []string{telKey, bwPass, bwCBPass, token} {
			require.NotContains(t, logs, secret, "node %d logged a credential", i)
		}
	}
	code, stdout, _ := runCLI(t, "admin", "carrier-accounts", "--help")
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "create")
	require.NotContains(t, stdout, telKey)
}

// TestCarrierOutageLosesNothing: Telnyx answers 503 for 60 s in the middle
// of a 2,000-recipient broadcast, then recovers. Every recipient gets exactly
// one text; another team's broadcast through Bandwidth goes out meanwhile
// as if nothing happened; each node logs the outage once.
func TestCarrierOutageLosesNothing(t *testing.T) {
	t.Parallel()
	const (
		base       = "https://teamtext.example.test"
		telKey     = "KEYtelnyxOutageSecret"
		recipients = 2000 + 1 // members and the head coach
	)
	tel := telnyxtest.NewServer(t, telKey, "prof-outage")
	bw := bandwidthtest.NewServer(t, "9900456", "bw-user", "bw-pass", "bw-app", "bw-cb", "bw-cb-pass")
	p := newPacingEnv(t, "carrier_outage", 2, "PUBLIC_BASE_URL="+base, secretsKeyEnv(t))
	tel.Rewrite = func(u string) string { return strings.Replace(u, base, p.nodes[0].PublicURL, 1) }
	ctx := context.Background()
	var telAcct, bwAcct carrierAccount
	require.NoError(t, p.admin.Expect(ctx, 201, "POST", "/carrier-accounts", telnyxAccount("T", tel), &telAcct))
	require.NoError(t, p.admin.Expect(ctx, 201, "POST", "/carrier-accounts", bandwidthAccount("B", bw), &bwAcct))
	bw.CallbackURL = p.nodes[1].PublicURL + "/carrier/bandwidth/" + bwAcct.ID

	big := p.team(t, 0, 81, recipients-1, 100)
	small := p.team(t, 1, 82, 5, 10)
	for tm, acct := range map[*paced]string{&big: telAcct.ID, &small: bwAcct.ID} {
		require.NoError(t, p.admin.Expect(ctx, 200, "PATCH", "/teams/"+tm.TeamID+"/numbers/"+tm.numberID, map[string]any{"carrier_account_id": acct}, nil))
	}
	flushEvery(t, 200*time.Millisecond, tel.Flush, bw.Flush)

	m, _ := broadcast(t, big.api, "Registration closes Friday")
	require.Equal(t, recipients, m.Recipients)
	waitFor(t, 60*time.Second, func() bool { return len(tel.Messages()) >= 500 })
	// The outage: Telnyx answers every request 503 for 60 s, then is back.
	outage := telnyxtest.Fault{Status: 503, Code: "10007", Title: "Unexpected error"}
	tel.Down(outage)
	back := time.AfterFunc(time.Minute, tel.Up)
	t.Cleanup(func() { back.Stop() })
	waitFor(t, 30*time.Second, func() bool { return tel.Creates() >= len(tel.Messages())+3 }) // the outage is noticed

	// Meanwhile another team's broadcast through Bandwidth is not held up.
	sm, smAt := broadcast(t, small.api, "Field 3 is closed")
	waitFor(t, 10*time.Second, func() bool { return len(bw.Messages()) == sm.Recipients })
	for _, msg := range bw.Messages() {
		require.Less(t, msg.At.Sub(smAt), 5*time.Second, "the other team's texts go out within a planning cycle or two")
	}

	// Nothing is lost: every delivery ends delivered. The bound is
	// generous because this checks what happens, not how fast: the
	// outage alone takes a minute, and the rest goes at the number's
	// pace on a machine the suite keeps busy.
	waitFor(t, 5*time.Minute, func() bool { return deliveries(t, p.url, m.ID, "delivered") == recipients })
	perRecipient := map[string]int{}
	for _, msg := range tel.Messages() {
		perRecipient[msg.To]++
	}
	require.Len(t, perRecipient, recipients, "every recipient got a text")
	for to, n := range perRecipient {
		require.Equal(t, 1, n, "recipient %s got %d texts", to[len(to)-4:], n)
	}
	require.GreaterOrEqual(t, tel.Creates(), len(tel.Messages())+3, "the outage was met")
	warns := 0
	for _, n := range p.nodes {
		for _, line := range strings.Split(n.Logs(), "\n") {
			if strings.Contains(line, `"level":"WARN"`) {
				warns++
				t.Logf("WARN: %.400s", line)
			}
		}
	}
	require.LessOrEqual(t, warns, 2, "an outage is one warning per node, not one per hand-over")
}

// TestCarrierFailoverMovesTheRestToAHealthyAccount: a team with a number
// at Telnyx and one at Twilio (the default account) turns failover on.
// Telnyx goes down in the middle of a broadcast: once it has been down for
// CARRIER_FAILOVER_AFTER the rest goes out through the Twilio number, but
// for the Telnyx number's head slot, which waits as the probe and goes
// once Telnyx is back. Nobody is texted twice or missed, and the next
// broadcast goes from each recipient's usual number again.
func TestCarrierFailoverMovesTheRestToAHealthyAccount(t *testing.T) {
	t.Parallel()
	const (
		base       = "https://teamtext.example.test"
		sid        = "AC00112233445566778899aabbccddeeff"
		token      = "twiliofailover0123456789abcdefgh"
		telKey     = "KEYtelnyxFailoverSecret"
		members    = 400
		recipients = members + 1
		pace       = 20
	)
	tw := twiliotest.NewServer(t, sid, token)
	tel := telnyxtest.NewServer(t, telKey, "prof-failover")
	p := newPacingEnv(t, "carrier_failover", 2, append(twilioDefaultEnv(t, tw, base), "CARRIER_FAILOVER_AFTER=2s")...)
	toNode := func(u string) string { return strings.Replace(u, base, p.nodes[1].PublicURL, 1) }
	tw.Rewrite, tel.Rewrite = toNode, toNode
	ctx := context.Background()
	var telAcct carrierAccount
	require.NoError(t, p.admin.Expect(ctx, 201, "POST", "/carrier-accounts", telnyxAccount("T", tel), &telAcct))

	tm := p.team(t, 0, 91, members, pace)
	require.NoError(t, p.admin.Expect(ctx, 200, "PATCH", "/teams/"+tm.TeamID+"/numbers/"+tm.numberID, map[string]any{"carrier_account_id": telAcct.ID}, nil))
	spare := teamNumber()
	require.NoError(t, p.admin.Expect(ctx, 201, "POST", "/teams/"+tm.TeamID+"/numbers", map[string]any{"number": spare, "throughput": pace}, nil))
	var set struct {
		CarrierFailover bool `json:"carrier_failover"`
	}
	require.NoError(t, p.admin.Expect(ctx, 200, "GET", "/teams/"+tm.TeamID+"/messaging-settings", nil, &set))
	require.False(t, set.CarrierFailover, "off by default")
	r, err := p.admin.Do(ctx, "PATCH", "/teams/"+tm.TeamID+"/messaging-settings", map[string]any{"carrier_failover": "yes"})
	require.NoError(t, err)
	require.Equal(t, 400, r.Status, "a bool, or nothing")
	require.NoError(t, p.admin.Expect(ctx, 200, "PATCH", "/teams/"+tm.TeamID+"/messaging-settings", map[string]any{"carrier_failover": true}, &set))
	require.True(t, set.CarrierFailover)

	flushEvery(t, 200*time.Millisecond, tw.Flush, tel.Flush)
	m, _ := broadcast(t, tm.api, "Tournament moved to Field 2")
	require.Equal(t, recipients, m.Recipients)
	waitFor(t, 60*time.Second, func() bool { return len(tel.Messages()) >= 40 })
	tel.Down(telnyxtest.Fault{Status: 503, Code: "10007", Title: "Unexpected error"})
	beforeOutage := len(tel.Messages())

	// All but the Telnyx number's head slot (at most a second of its texts)
	// goes out through Twilio while Telnyx is down.
	waitFor(t, 90*time.Second, func() bool { return len(tw.Messages())+len(tel.Messages()) >= recipients-pace })
	require.Equal(t, beforeOutage, len(tel.Messages()), "nothing reached Telnyx while it was down")
	require.Greater(t, len(tw.Messages()), recipients/2+20, "Twilio took more than its own share: Telnyx's queue moved")
	tel.Up()
	waitFor(t, 60*time.Second, func() bool { return deliveries(t, p.url, m.ID, "delivered") == recipients })

	first := map[string]string{} // recipient → the number that texted them
	for _, msg := range tw.Messages() {
		require.Equal(t, spare, msg.From)
		require.Empty(t, first[msg.To], "recipient %s texted twice", msg.To[len(msg.To)-4:])
		first[msg.To] = msg.From
	}
	for _, msg := range tel.Messages() {
		require.Equal(t, tm.number, msg.From)
		require.Empty(t, first[msg.To], "recipient %s texted twice", msg.To[len(msg.To)-4:])
		first[msg.To] = msg.From
	}
	require.Len(t, first, recipients, "every recipient got the broadcast")
	require.Equal(t, recipients-len(tel.Messages()), countRowsIn(t, p.url,
		`SELECT count(*) FROM messaging_deliveries WHERE message_id = $1 AND sent_from = $2`, m.ID, spare), "each delivery records the number that sent it")

	// Telnyx is back: the next broadcast goes from each recipient's usual
	// number, Telnyx's included for those its queue lost to Twilio.
	telBefore, twBefore := len(tel.Messages()), len(tw.Messages())
	m2, _ := broadcast(t, tm.api, "Field 2 is open again")
	waitFor(t, 60*time.Second, func() bool { return deliveries(t, p.url, m2.ID, "delivered") == recipients })
	returned := 0
	for _, msg := range tel.Messages()[telBefore:] {
		if first[msg.To] == spare {
			returned++
		}
	}
	require.Equal(t, recipients, len(tel.Messages())-telBefore+len(tw.Messages())-twBefore, "one text each, again")
	require.Positive(t, returned, "recipients failed over to Twilio are texted from their usual Telnyx number again")

	infos := 0
	for _, n := range p.nodes {
		infos += strings.Count(n.Logs(), "queued texts moved to the team's numbers on healthy accounts")
		require.NotContains(t, n.Logs(), telKey)
	}
	require.Positive(t, infos, "the move is logged")
}
