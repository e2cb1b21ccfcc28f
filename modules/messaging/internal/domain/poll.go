package domain

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/teamtext/teamtext/platform/fault"
)

// Polls (RSVP by reply). A broadcast with reply options is a
// poll: its text ends with a line naming the options ("Reply YES, NO or
// MAYBE"), and from its send until its reply_until an inbound text from a
// recipient whose first word is one of the options is recorded as that
// recipient's answer (the inbound package's poll step).
//
// Options are stored and shown upper-case: "yes" and "Yes" are the option
// YES, and an answer matches whatever its case.

// Poll limits.
const (
	MinReplyOptions     = 2
	MaxReplyOptions     = 9
	MaxReplyOptionRunes = 20
	// DefaultReplyWindow is how long a poll stays open when reply_until
	// is not given: from the send (or the scheduled time).
	DefaultReplyWindow = 7 * 24 * time.Hour
	// MaxReplyWindow is the latest reply_until may be after the send.
	MaxReplyWindow = 30 * 24 * time.Hour
)

// ParseReplyOptions checks a send's reply options and returns them
// upper-case, in the order given: 2 to 9 distinct (case ignored) single
// words of letters or digits, each at most 20 characters. nil is no
// poll; an empty list is refused.
func ParseReplyOptions(opts []string) ([]string, error) {
	if opts == nil {
		return nil, nil
	}
	if len(opts) < MinReplyOptions || len(opts) > MaxReplyOptions {
		return nil, fault.Invalidf("reply_options must have %d to %d options", MinReplyOptions, MaxReplyOptions)
	}
	out := make([]string, len(opts))
	seen := make(map[string]bool, len(opts))
	for i, o := range opts {
		if o == "" {
			return nil, fault.Invalidf("reply_options[%d] must not be empty", i)
		}
		if !utf8.ValidString(o) {
			return nil, fault.Invalidf("reply_options[%d] must be valid UTF-8", i)
		}
		if utf8.RuneCountInString(o) > MaxReplyOptionRunes {
			return nil, fault.Invalidf("reply_options[%d] must be at most %d characters", i, MaxReplyOptionRunes)
		}
		for _, r := range o {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				return nil, fault.Invalidf("reply_options[%d] must be one word of letters or digits (no spaces or punctuation): %q", i, o)
			}
		}
		up := strings.ToUpper(o)
		if seen[up] {
			return nil, fault.Invalidf("reply_options must be distinct (case is ignored): %q is given twice", up)
		}
		seen[up] = true
		out[i] = up
	}
	return out, nil
}

// ReplyLine is the line a poll's text ends with: "Reply YES, NO or MAYBE"
// (the options joined by ", ", and " or " before the last). "" for no
// options.
func ReplyLine(opts []string) string {
	switch len(opts) {
	case 0:
		return ""
	case 1:
		return "Reply " + opts[0]
	}
	return "Reply " + strings.Join(opts[:len(opts)-1], ", ") + " or " + opts[len(opts)-1]
}

// RenderPoll returns exactly what each recipient of a send receives:
// Render's text and, for a poll, the reply line on a new line at the end.
func RenderPoll(teamName, text string, opts []string) string {
	out := Render(teamName, text)
	if line := ReplyLine(opts); line != "" {
		out += "\n" + line
	}
	return out
}

// ReplyUntil decides when a poll closes: the RFC 3339 timestamp raw,
// which must be after the send (sendAt: now, or the scheduled time) and
// at most 30 days after it; "" is 7 days after the send. Without options
// reply_until is refused.
func ReplyUntil(raw string, hasOptions bool, sendAt time.Time) (*time.Time, error) {
	if !hasOptions {
		if raw != "" {
			return nil, fault.Invalidf("reply_until needs reply_options")
		}
		return nil, nil
	}
	if raw == "" {
		at := sendAt.Add(DefaultReplyWindow).UTC().Truncate(time.Microsecond)
		return &at, nil
	}
	at, err := time.Parse(time.RFC3339, raw)
	if err != nil {
		return nil, fault.Invalidf("reply_until must be an RFC 3339 timestamp with a time zone offset, e.g. 2026-05-01T17:30:00-04:00")
	}
	if !at.After(sendAt) {
		return nil, fault.Invalidf("reply_until must be in the future (after the send)")
	}
	if at.After(sendAt.Add(MaxReplyWindow)) {
		return nil, fault.Invalidf("reply_until must be at most 30 days after the send")
	}
	at = at.UTC().Truncate(time.Microsecond)
	return &at, nil
}

// MatchOption returns the option an inbound text answers: its first word,
// trimmed of white space and punctuation and compared case-insensitively,
// must be one of opts (upper-case, as ParseReplyOptions returns them).
// Words are separated by white space and punctuation. "yes", "Yes!" and
// " YES, see you there" answer YES; "no idea?" answers NO; "yesss",
// "nope" and "I said yes" answer nothing.
func MatchOption(body string, opts []string) (string, bool) {
	first := strings.ToUpper(firstWord(body))
	if first == "" {
		return "", false
	}
	for _, o := range opts {
		if o == first {
			return o, true
		}
	}
	return "", false
}

// MayAnswer reports whether a text's first word could be an option of
// some poll (at most 20 letters or digits): the poll step asks the store
// about those texts only.
func MayAnswer(body string) bool {
	w := firstWord(body)
	return w != "" && utf8.RuneCountInString(w) <= MaxReplyOptionRunes
}

// firstWord is a text's first word: words are separated by white space,
// punctuation and symbols.
func firstWord(body string) string {
	isSep := func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) }
	start := strings.IndexFunc(body, func(r rune) bool { return !isSep(r) })
	if start < 0 {
		return ""
	}
	rest := body[start:]
	if end := strings.IndexFunc(rest, isSep); end >= 0 {
		return rest[:end]
	}
	return rest
}

// PollOpen reports whether a poll open until until takes an answer
// received at at (the store's lookup encodes the same rule).
func PollOpen(until *time.Time, at time.Time) bool {
	return until != nil && at.Before(*until)
}

// ResponseMember is the roster entry an answer was recorded for, as
// member.* events show it, taken when the answer arrived.
type ResponseMember struct {
	ID        string
	Name      string
	Phone     string
	Email     string
	Role      string
	Status    string
	IsBlocked bool
	CreatedAt time.Time
}

// Response is one roster entry's answer to a poll: the latest wins.
type Response struct {
	MessageID  string
	TeamID     string
	Member     ResponseMember
	Option     string
	InboundID  string // the text that answered
	ReceivedAt time.Time
}

// Newer reports whether r is a later answer than o (by arrival, then the
// text's id), the one kept when both answer for the same entry.
func (r *Response) Newer(o *Response) bool {
	if !r.ReceivedAt.Equal(o.ReceivedAt) {
		return r.ReceivedAt.After(o.ReceivedAt)
	}
	return r.InboundID > o.InboundID
}

// Tally is a poll's answers per option, every option present (0
// included), in the options' order.
type Tally struct {
	Option string
	Count  int
}

// Tallies lists counts per option in opts' order, 0 for an option nobody
// chose.
func Tallies(opts []string, counts map[string]int) []Tally {
	out := make([]Tally, len(opts))
	for i, o := range opts {
		out[i] = Tally{Option: o, Count: counts[o]}
	}
	return out
}

// OpenPoll is the poll an inbound text may answer: the latest open poll
// of the text's team whose text reached the sender's number, its options
// and the roster entries that delivery reached.
type OpenPoll struct {
	MessageID string
	Options   []string
	MemberIDs []string
}
