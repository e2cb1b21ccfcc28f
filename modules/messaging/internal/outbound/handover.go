package outbound

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/phone"
)

// passClock is a pass's time: the service clock when the pass began plus
// the real time elapsed since. Every instant a pass records (when a
// number's hand-over ended, statuses) comes from it, so a test clock moved
// forward in the middle of a pass is seen by the next pass, whole, and the
// hand-over guard measures from the real end of the carrier calls.
type passClock struct {
	now   time.Time
	start time.Time // monotonic
	// notBefore is the instant the pass's texts may reach the carrier (the
	// service clock); zero or past: at once.
	notBefore time.Time
	// turns, when set, are the instants each number's texts may reach the
	// carrier (by number id), no later than notBefore: a pass that took
	// several numbers hands each over at its own turn, not at the last
	// one's, so no number waits for another.
	turns map[string]time.Time
}

func (s *Service) startPass() passClock {
	return passClock{now: s.Clock.Now().UTC(), start: time.Now()}
}

func (c passClock) at() time.Time { return c.now.Add(time.Since(c.start)) }

// turn is when number's texts may reach the carrier.
func (c passClock) turn(number string) time.Time {
	if t, ok := c.turns[number]; ok {
		return t
	}
	return c.notBefore
}

// waitTurn waits, at most until ctx ends, for the pass's notBefore: never
// longer than the service's Lead, since no number is taken earlier.
func (c passClock) waitTurn(ctx context.Context) error { return c.waitUntil(ctx, c.notBefore) }

// waitUntil waits, at most until ctx ends, until the pass's clock reads at.
func (c passClock) waitUntil(ctx context.Context, at time.Time) error {
	d := at.Sub(c.at())
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// outgoing is a text with the number it goes out from.
type outgoing struct {
	Text
	NumberID string // "" on the fan-out path
	From     string
}

// handedOver is what a hand-over did, per sending number.
type handedOver struct {
	segments map[string]int       // segments that reached the carrier (accepted or refused)
	done     map[string]time.Time // when the number's last carrier call finished
	busy     map[string]time.Time // the carrier asked the number to wait until then
	retry    map[int64]bool       // slots with texts to try again
	// transient joins the errors of texts to try again (the fan-out job
	// returns it, for River to retry).
	transient error
}

// maxCalls bounds the carrier calls in flight for carriers that take one
// text per call.
const maxCalls = 16

// handOver hands texts to the carrier, in the caller's transaction, and
// records what came of them: recipients who opted out since the send was
// accepted are never handed over (their deliveries fail, error_code
// opted_out); accepted texts become sent; refusals fail at once; texts the
// carrier could not take now stay queued for a later try.
func (s *Service) handOver(ctx context.Context, texts []outgoing, pass passClock) (handedOver, error) {
	res := handedOver{segments: map[string]int{}, done: map[string]time.Time{}, busy: map[string]time.Time{}, retry: map[int64]bool{}}
	if len(texts) == 0 {
		return res, nil
	}
	texts, skipped, err := s.dropOptedOut(ctx, texts)
	if err != nil {
		return res, err
	}
	messages := map[string]bool{}
	for _, t := range texts {
		messages[t.MessageID] = true
	}
	for _, t := range skipped {
		messages[t.MessageID] = true
	}
	ids := keys(messages)
	// Each delivery records the number it is handed over from, before the
	// carrier sees it: no carrier report can race this write, and a text
	// moved to another number (failover) records the one that sent it.
	if err := s.Store.RecordSenders(ctx, sendersOf(texts)); err != nil {
		return res, err
	}
	results, err := s.send(ctx, texts, &res, pass)
	if err != nil {
		return res, err
	}

	now := pass.at().UTC()
	var sent []Sent
	var reports []carrier.StatusArgs
	var broadcasts []Broadcast
	skippedPer := map[string]int{}
	for _, t := range skipped {
		reports = append(reports, optedOut(t.DeliveryID, now))
		skippedPer[t.MessageID]++
	}
	var transient []error
	for i, r := range results {
		t := texts[i]
		if r.Err == nil || isPermanent(r.Err) {
			res.segments[t.NumberID] += t.Segments
			broadcasts = append(broadcasts, Broadcast{TeamID: t.TeamID, Phone: t.Phone, MessageID: t.MessageID, GroupID: t.GroupID,
				MessageCreatedAt: t.MessageCreatedAt})
			if s.HandoverDelay != nil {
				s.HandoverDelay.Observe(max(now.Sub(t.MessageCreatedAt), 0).Seconds())
			}
			if s.HandedOver != nil {
				s.HandedOver.Inc()
			}
		}
		if pe, ok := carrier.IsPermanent(r.Err); ok {
			reports = append(reports, carrier.StatusArgs{DeliveryID: t.DeliveryID, Status: domain.DeliveryFailed, CarrierStatus: "rejected",
				ErrorCode: pe.Code, ErrorMessage: pe.Message, At: now})
			continue
		}
		if r.Err != nil {
			res.retry[t.SlotID] = true
			transient = append(transient, fmt.Errorf("delivery %s to %s: %w", t.DeliveryID, phone.Mask(t.Phone), r.Err))
			continue
		}
		sent = append(sent, Sent{DeliveryID: t.DeliveryID, ProviderMessageID: r.Receipt.ProviderMessageID, CarrierStatus: r.Receipt.Status})
	}
	res.transient = errors.Join(transient...)
	if len(transient) > 0 {
		// Not a warning: the texts wait and nothing is lost, and an outage
		// that lasts is the carrier router's to report (its breaker warns
		// once per account and node). A hand-over held back by a known
		// outage is not even news.
		level := slog.LevelInfo
		if !hasOther(transient) {
			level = slog.LevelDebug
		}
		s.Log.Log(ctx, level, "carrier could not take texts; they stay queued for another try", "texts", len(transient),
			"first_err", transient[0])
	}
	// Several sends: their rows locked in one order (as an ingestion batch
	// locks them), so concurrent hand-overs and batches never deadlock on
	// their counts; only now, after the carrier calls, so that no batch of
	// reports waits on them through a pass's calls.
	if len(ids) > 1 {
		if err := s.Store.LockMessages(ctx, ids); err != nil {
			return res, err
		}
	}
	if err := s.Store.MarkSent(ctx, sent, now); err != nil {
		return res, err
	}
	if err := s.Ingest.Apply(ctx, reports); err != nil {
		return res, err
	}
	if err := s.Store.AddSkipped(ctx, skippedPer); err != nil {
		return res, err
	}
	if err := s.Store.RecordBroadcasts(ctx, newest(broadcasts)); err != nil {
		return res, err
	}
	return res, s.Store.CompleteMessages(ctx, ids, now)
}

// optedOut is the status that ends a queued delivery whose recipient opted out.
func optedOut(deliveryID string, at time.Time) carrier.StatusArgs {
	r := domain.OptedOutReport(at)
	return carrier.StatusArgs{DeliveryID: deliveryID, Status: r.Status, CarrierStatus: r.CarrierStatus,
		ErrorCode: r.ErrorCode, ErrorMessage: r.ErrorMessage, At: r.At}
}

func isPermanent(err error) bool {
	_, ok := carrier.IsPermanent(err)
	return ok
}

// dropOptedOut splits off the texts whose recipient is opted out of the team now.
func (s *Service) dropOptedOut(ctx context.Context, texts []outgoing) (keep, skipped []outgoing, err error) {
	pairs := make([]rosterapi.TeamPhone, 0, len(texts))
	seen := map[rosterapi.TeamPhone]bool{}
	for _, t := range texts {
		p := rosterapi.TeamPhone{TeamID: t.TeamID, Phone: phone.Number(t.Phone)}
		if !seen[p] {
			seen[p] = true
			pairs = append(pairs, p)
		}
	}
	out, err := s.OptOuts.OptedOutAmong(ctx, pairs)
	if err != nil {
		return nil, nil, fmt.Errorf("opt-outs before hand-over: %w", err)
	}
	if len(out) == 0 {
		return texts, nil, nil
	}
	gone := make(map[rosterapi.TeamPhone]bool, len(out))
	for _, p := range out {
		gone[p] = true
	}
	for _, t := range texts {
		if gone[rosterapi.TeamPhone{TeamID: t.TeamID, Phone: phone.Number(t.Phone)}] {
			skipped = append(skipped, t)
		} else {
			keep = append(keep, t)
		}
	}
	return keep, skipped, nil
}

// send hands the texts to the carrier: in one call when it takes batches,
// else one call per text, several at once, each number's calls stopping at
// its first failure that is not about the text itself. It notes per number
// when its last call finished and whether the carrier asked it to wait.
func (s *Service) send(ctx context.Context, texts []outgoing, res *handedOver, pass passClock) ([]carrier.Result, error) {
	msgs := make([]carrier.Message, len(texts))
	for i, t := range texts {
		msgs[i] = carrier.Message{DeliveryID: t.DeliveryID, TeamID: t.TeamID, From: t.From, To: t.Phone, Body: t.Body, Segments: t.Segments}
	}
	results := make([]carrier.Result, len(texts))
	if len(texts) == 0 {
		return results, nil
	}
	if bs, ok := s.Carrier.(carrier.BatchSender); ok {
		if err := pass.waitTurn(ctx); err != nil {
			return nil, err
		}
		rs, err := bs.SendMany(ctx, msgs)
		done := pass.at()
		for i := range results {
			if err != nil {
				results[i] = carrier.Result{Err: err}
			} else {
				results[i] = rs[i]
			}
			s.noteCall(res, texts[i].NumberID, takenAt(results[i], done), results[i].Err)
		}
		return results, nil
	}
	// Calls start in order of their numbers' turns, each at its number's
	// turn, so a call waiting for a later turn never holds a slot an
	// earlier one needs.
	order := make([]int, len(texts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return pass.turn(texts[order[a]].NumberID).Before(pass.turn(texts[order[b]].NumberID))
	})
	var mu sync.Mutex
	stopped := map[string]bool{}
	sem := make(chan struct{}, maxCalls)
	var wg sync.WaitGroup
	var waitErr error
	for _, i := range order {
		sem <- struct{}{}
		num := texts[i].NumberID
		if err := pass.waitUntil(ctx, pass.turn(num)); err != nil {
			<-sem
			waitErr = err
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			mu.Lock()
			stop := stopped[num]
			mu.Unlock()
			var r carrier.Result
			if stop {
				r.Err = errors.New("not tried: the carrier failed an earlier text from this number")
			} else {
				r.Receipt, r.Err = s.Carrier.Send(ctx, msgs[i])
			}
			done := pass.at()
			mu.Lock()
			defer mu.Unlock()
			results[i] = r
			if r.Err != nil && !isPermanent(r.Err) {
				stopped[num] = true
			}
			s.noteCall(res, num, takenAt(r, done), r.Err)
		}()
	}
	wg.Wait()
	if waitErr != nil {
		return nil, waitErr
	}
	return results, nil
}

// takenAt is when the carrier took a text: when it says so, else when its
// call ended (the latest it can have taken it). The number's next window
// counts from there, so the pace is exact at the carrier, and the time a
// pass spends after the carrier took its texts (its writes, its commit)
// does not slow the number down.
func takenAt(r carrier.Result, done time.Time) time.Time {
	if r.Err == nil && !r.Receipt.At.IsZero() && r.Receipt.At.Before(done) {
		return r.Receipt.At
	}
	return done
}

// noteCall records a carrier call's end for its number (callers serialise).
func (s *Service) noteCall(res *handedOver, number string, done time.Time, err error) {
	if done.After(res.done[number]) {
		res.done[number] = done
	}
	if b, ok := carrier.IsBusy(err); ok {
		wait := b.RetryAfter
		if wait <= 0 {
			wait = busyBackoff
		}
		if until := done.Add(wait); until.After(res.busy[number]) {
			res.busy[number] = until
		}
	} else if err != nil && !isPermanent(err) {
		if until := done.Add(failBackoff); until.After(res.busy[number]) {
			res.busy[number] = until
		}
	}
}

// How long a number waits after the carrier asked it to slow down without
// saying how long, and after a failure that is not about the text.
const (
	busyBackoff = 5 * time.Second
	failBackoff = 5 * time.Second
)

// newest keeps, per team and number, the broadcast created last (a
// hand-over may carry two sends' texts to one recipient), in (team, phone)
// order.
func newest(bs []Broadcast) []Broadcast {
	type key struct{ team, phone string }
	best := make(map[key]Broadcast, len(bs))
	for _, b := range bs {
		k := key{b.TeamID, b.Phone}
		cur, ok := best[k]
		if !ok || cur.MessageCreatedAt.Before(b.MessageCreatedAt) ||
			(cur.MessageCreatedAt.Equal(b.MessageCreatedAt) && cur.MessageID < b.MessageID) {
			best[k] = b
		}
	}
	out := make([]Broadcast, 0, len(best))
	for _, b := range best {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].TeamID != out[j].TeamID {
			return out[i].TeamID < out[j].TeamID
		}
		return out[i].Phone < out[j].Phone
	})
	return out
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// hasOther reports whether any of errs is not a known outage
// (carrier.ErrUnavailable).
func hasOther(errs []error) bool {
	for _, err := range errs {
		if !errors.Is(err, carrier.ErrUnavailable) {
			return true
		}
	}
	return false
}

// sendersOf maps each text's delivery to the number it goes from.
func sendersOf(texts []outgoing) map[string]string {
	out := make(map[string]string, len(texts))
	for _, t := range texts {
		if t.From != "" {
			out[t.DeliveryID] = t.From
		}
	}
	return out
}
