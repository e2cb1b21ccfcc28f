package domain

import (
	"errors"
	"hash/fnv"
	"strings"
	"time"
	"unicode"

	"github.com/teamtext/teamtext/platform/fault"
)

// The inbound side: texts people send to a team's number, as staged by a
// carrier callback (PendingInbound) and as filed (Inbound), the staff
// inbox's filter, and replies to one person (reply.go).

// Keyword is what an inbound text asks the service to do, in its canonical
// lowercase form. The empty Keyword is an ordinary text (keyword null).
type Keyword string

// The keywords and what they do.
const (
	// KeywordStop opts out every roster entry with the number
	// (member.opted_out per entry); a number not on the roster is recorded,
	// so the API will not add it later. No confirmation text is sent: a
	// confirmation, if any, comes from the carrier's own opt-out handling
	// (for example Twilio Advanced Opt-Out).
	KeywordStop Keyword = "stop"
	// KeywordStart opts an opted-out number back in (member.opted_in per
	// entry); it does nothing for a number that is not opted out. No text is
	// sent either.
	KeywordStart Keyword = "start"
	// KeywordHelp answers the number with the team's HELP reply (CTIA): the
	// team name, "Msg & data rates may apply" and how to opt out, unless the
	// team configured its own text. It is sent to that one number, never as a
	// broadcast, and recorded.
	KeywordHelp Keyword = "help"
)

// MatchKeyword returns the keyword a text is, or "" for an ordinary text.
//
// The whole message must be the keyword: the body is trimmed of white space
// and punctuation at both ends, runs of inner white space count as one
// space, and case is ignored. So "STOP", " stop ", "Stop.", "stop!!" and
// "Opt  Out" match, while "stop please", "please stop", "don't stop" and
// "STOP STOP" do not: they are ordinary texts that land in the staff inbox,
// where staff can record an opt-out (POST /opt-outs) if that was meant.
//
//   - stop: STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, REVOKE, OPT OUT
//     (also written OPT-OUT or OPTOUT): the FCC list plus STOPALL.
//   - start: START, UNSTOP.
//   - help: HELP, INFO.
//
// teamtext has no join keywords (members join through the roster), so
// every other text has keyword null and ingestion never answers
// keyword_required.
func MatchKeyword(body string) Keyword {
	s := strings.TrimFunc(body, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) })
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	switch s {
	case "stop", "stopall", "unsubscribe", "cancel", "end", "quit", "revoke", "opt out", "opt-out", "optout":
		return KeywordStop
	case "start", "unstop":
		return KeywordStart
	case "help", "info":
		return KeywordHelp
	}
	return ""
}

// Staging: a carrier callback only stages its text; filers file
// the staged texts lane by lane.
const (
	// InboundLanes is how many lanes staged texts are spread over: how many
	// filers, across every node, can file at once.
	InboundLanes = 8
	// InboundMaxAttempts is how many times a staged text may fail to be
	// filed on its own before it is set aside (kept staged, no longer taken).
	InboundMaxAttempts = 5
)

// InboundLane is the lane of a sender's number: a hash of it, so one
// number's texts are all filed by the one filer holding its lane, in order.
func InboundLane(from string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(from))
	return int(h.Sum32() % InboundLanes)
}

// PendingInbound is a text accepted from the carrier and staged, not filed
// yet.
type PendingInbound struct {
	ID                int64 // the staging order (assigned when staged)
	ProviderMessageID string
	FromPhone         string
	ToPhone           string
	Body              string
	Keyword           bool // STOP, START or HELP: filed first
	Lane              int
	ReceivedAt        time.Time
}

// StageInbound is a text as a carrier callback stages it, its numbers
// already normalised: its lane is the sender's, it is marked a keyword
// text when the whole body is one, and its arrival is kept as Postgres
// keeps times (UTC, microseconds). from, to and the provider id are
// required, and the arrival time.
func StageInbound(providerID, from, to, body string, at time.Time) (PendingInbound, error) {
	if providerID == "" || from == "" || to == "" {
		return PendingInbound{}, errors.New("inbound: from, to and provider_message_id are required")
	}
	if at.IsZero() {
		return PendingInbound{}, errors.New("inbound: received_at is required")
	}
	return PendingInbound{ProviderMessageID: providerID, FromPhone: from, ToPhone: to, Body: body,
		Keyword: MatchKeyword(body) != "", Lane: InboundLane(from), ReceivedAt: at.UTC().Truncate(time.Microsecond)}, nil
}

// InboundMember is the roster entry an inbound text came from, as it was
// when the text arrived.
type InboundMember struct {
	ID   string
	Name string
	Role string
}

// LatestReply is the latest staff reply to an inbox item.
type LatestReply struct {
	Body     string
	MemberID string
	SentAt   time.Time
}

// Inbound is a text someone sent to a team number, as filed: who sent it
// (the member is a snapshot taken on arrival; zero when the number is not
// on the roster), the keyword it is, whether it is held while the team's
// renewal is overdue, and its inbox state (read, replied).
type Inbound struct {
	ID                string
	TeamID            string
	ProviderMessageID string
	FromPhone         string
	ToPhone           string
	Body              string
	Keyword           Keyword
	GroupID           string        // the group of the latest broadcast to the number, if it went to a group
	Member            InboundMember // zero (ID "") when the number is not on the roster
	ReceivedAt        time.Time
	Held              bool
	ReleasedAt        *time.Time
	ReadAt            *time.Time
	RepliedAt         *time.Time // the first staff reply's time
	LatestReply       *LatestReply
	// ResponseTo is the poll (a message id) the text answered;
	// "" when it answered none.
	ResponseTo string
	CreatedAt  time.Time
}

// Visible reports whether the text is listed and announced: not held.
func (in *Inbound) Visible() bool { return !in.Held }

// InInbox reports whether the text is an inbox item, what staff triage:
// visible, and not a keyword (STOP, START and HELP are handled by the
// service). The stores' inbox queries encode the same rule.
func (in *Inbound) InInbox() bool { return !in.Held && in.Keyword == "" }

// Unread reports whether nobody marked the text read (nor replied to it).
func (in *Inbound) Unread() bool { return in.ReadAt == nil }

// MarkRead marks the text read at at; marking it again keeps the first time.
func (in *Inbound) MarkRead(at time.Time) {
	if in.ReadAt == nil {
		in.ReadAt = &at
	}
}

// Release makes a held text visible at at.
func (in *Inbound) Release(at time.Time) {
	in.Held, in.ReleasedAt = false, &at
}

// Replied records a staff reply on the text: RepliedAt keeps the first
// reply's time, the latest reply replaces the previous one, and replying
// marks the text read.
func (in *Inbound) Replied(rp *Reply) {
	if in.RepliedAt == nil {
		at := rp.CreatedAt
		in.RepliedAt = &at
	}
	in.MarkRead(rp.CreatedAt)
	in.LatestReply = &LatestReply{Body: rp.Body, MemberID: rp.MemberID, SentAt: rp.CreatedAt}
}

// InboxFilter selects inbox items (GET /inbox's filter).
type InboxFilter string

// Inbox filters.
const (
	InboxAll     InboxFilter = "all"
	InboxUnread  InboxFilter = "unread"
	InboxReplied InboxFilter = "replied"
)

// ParseInboxFilter checks GET /inbox's filter ("" means all).
func ParseInboxFilter(f string) (InboxFilter, error) {
	switch InboxFilter(f) {
	case "", InboxAll:
		return InboxAll, nil
	case InboxUnread, InboxReplied:
		return InboxFilter(f), nil
	}
	return "", fault.Invalidf("filter must be all, unread or replied")
}

// Matches reports whether an inbox item passes the filter (the stores'
// queries encode the same rule).
func (f InboxFilter) Matches(in *Inbound) bool {
	switch f {
	case InboxUnread:
		return in.Unread()
	case InboxReplied:
		return in.RepliedAt != nil
	}
	return true
}

// DailyStats are analytics counters, for one day or summed over a range.
type DailyStats struct {
	Broadcasts    int64
	Deliveries    int64
	Delivered     int64
	Failed        int64 // deliveries whose final status is failed (the dashboard's chart)
	TextsReceived int64
}

// DayStats are one UTC day's counters.
type DayStats struct {
	Day time.Time // midnight UTC
	DailyStats
}
