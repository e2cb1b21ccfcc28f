package inbound

import (
	"strings"
	"unicode"
)

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
