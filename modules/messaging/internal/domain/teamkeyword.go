package domain

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/text"
)

// Team keywords: a team's own words, each with an automatic
// answer and optionally a group. Someone who texts exactly the word to a
// team number is answered with the reply, one to one, from the number
// texted; a roster entry with the sender's number also joins the group.

// TeamKeyword is one of a team's keywords.
type TeamKeyword struct {
	ID        string
	TeamID    string
	Keyword   string // upper case, letters and digits (ValidKeywordWord)
	Reply     string // what the keyword answers, after "<team name>: "
	GroupID   string // the group a member who texts it joins; "" for none
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Limits of a team keyword.
const (
	MaxKeywordRunes = 20
	// MaxKeywordReplyRunes bounds a keyword's reply as a team's HELP text
	// is bounded (three GSM-7 segments before the team's name).
	MaxKeywordReplyRunes = MaxHelpTextRunes
	// KeywordLimit is how many keywords a team may have.
	KeywordLimit = 100
)

// ReplyKeyword is the kind of the automatic answer to a team keyword.
const ReplyKeyword = "keyword"

// JoinKeywords are the join keywords (roster's sign-up by text,
// rosterapi.JoinKeywords, held equal by a test): a team keyword may not be
// one, nor the team's code.
func JoinKeywords() []string { return []string{"JOIN", "ATHLETE", "PARENT"} }

// ValidKeywordWord checks a keyword as given and returns it as stored:
// trimmed, upper case, one word of 1 to MaxKeywordRunes ASCII letters and
// digits. It refuses (400 invalid_request) the reserved words: STOP, START
// and HELP and each of their synonyms (MatchKeyword), the join keywords
// (JOIN, ATHLETE, PARENT) and teamCode, in any case.
func ValidKeywordWord(word, teamCode string) (string, error) {
	w := strings.TrimSpace(word)
	if w == "" || utf8.RuneCountInString(w) > MaxKeywordRunes {
		return "", fault.Invalidf("keyword must be 1 to %d letters or digits", MaxKeywordRunes)
	}
	for _, r := range w { // before upper-casing: ı and ſ would become I and S
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return "", fault.Invalidf("keyword must be one word of letters A to Z and digits, with no spaces or punctuation")
		}
	}
	w = strings.ToUpper(w)
	if reason := reservedKeyword(w, teamCode); reason != "" {
		return "", fault.Invalidf("keyword %s is reserved: %s", w, reason)
	}
	return w, nil
}

// reservedKeyword says why an upper-case word cannot be a team keyword,
// or "" when it can.
func reservedKeyword(w, teamCode string) string {
	switch MatchKeyword(w) {
	case KeywordStop:
		return "it opts the number out (STOP)"
	case KeywordStart:
		return "it opts the number back in (START)"
	case KeywordHelp:
		return "it answers with the team's HELP text"
	}
	for _, j := range JoinKeywords() {
		if w == j {
			return "it joins the team by text"
		}
	}
	if teamCode != "" && strings.EqualFold(w, strings.TrimSpace(teamCode)) {
		return "it is the team's code, which joins the team by text"
	}
	return ""
}

// ValidKeywordReply checks a keyword's reply: something visible, at most
// MaxKeywordReplyRunes characters, text Postgres can store (valid UTF-8,
// no NUL). It is kept as given, trimmed.
func ValidKeywordReply(reply string) (string, error) {
	reply = strings.TrimSpace(reply)
	if !utf8.ValidString(reply) || strings.ContainsRune(reply, 0) {
		return "", fault.Invalidf("reply must be valid UTF-8 text without NUL characters")
	}
	if !text.Visible(reply) {
		return "", fault.Invalidf("reply must not be empty")
	}
	if utf8.RuneCountInString(reply) > MaxKeywordReplyRunes {
		return "", fault.Invalidf("reply must be at most %d characters", MaxKeywordReplyRunes)
	}
	return reply, nil
}

// KeywordFields are a keyword's checked fields.
type KeywordFields struct {
	Keyword, Reply, GroupID string
}

// NewTeamKeyword is a new keyword of a team with checked fields.
func NewTeamKeyword(id, teamID string, f KeywordFields, now time.Time) TeamKeyword {
	return TeamKeyword{ID: id, TeamID: teamID, Keyword: f.Keyword, Reply: f.Reply, GroupID: f.GroupID, CreatedAt: now, UpdatedAt: now}
}

// KeywordWord is the word an inbound text could be a team keyword as: the
// body trimmed of white space and punctuation at both ends (as
// MatchKeyword trims it), upper case, when what is left is one word of 1
// to MaxKeywordRunes ASCII letters and digits; "" otherwise.
func KeywordWord(body string) string {
	s := strings.TrimFunc(body, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) })
	if s == "" || len(s) > MaxKeywordRunes {
		return ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return ""
		}
	}
	return strings.ToUpper(s)
}

// TeamWord is a word texted to a team: a keyword it may have.
type TeamWord struct{ TeamID, Word string }

// NewKeywordReply is the answer to in, a text that is the team keyword k:
// "<team name>: " and the keyword's reply, to its sender, queued at now.
// Like a HELP answer it is not a broadcast: not charged as credits.
func NewKeywordReply(id string, in *Inbound, k *TeamKeyword, teamName string, now time.Time) *Reply {
	body := Prefix(teamName) + k.Reply
	return &Reply{ID: id, TeamID: in.TeamID, InboundID: in.ID, Kind: ReplyKeyword, ToPhone: in.FromPhone, Body: body,
		Segments: Segments(body).Segments, Status: ReplyQueued, CreatedAt: now}
}
