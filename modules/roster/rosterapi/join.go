package rosterapi

import (
	"context"
	"strings"
	"time"

	"github.com/teamtext/teamtext/platform/phone"
)

// JoinKeywords are the words that sign a number up to a team by text,
// upper case; the team's own code is one too. Team keywords
// may not use them (they are reserved).
func JoinKeywords() []string { return []string{"JOIN", "ATHLETE", "PARENT"} }

// joinRole is the role a join keyword gives: PARENT guardian, the others
// athlete.
func joinRole(word string) (Role, bool) {
	switch word {
	case "JOIN", "ATHLETE":
		return RoleAthlete, true
	case "PARENT":
		return RoleGuardian, true
	}
	return "", false
}

// MatchJoinKeyword reports whether body is a join keyword for a team whose
// code is teamCode: the whole text, trimmed, in any case, is one of
// JoinKeywords or the code (role athlete). It returns the role the keyword
// gives and the keyword in upper case.
func MatchJoinKeyword(body, teamCode string) (role Role, keyword string, ok bool) {
	w := strings.ToUpper(strings.TrimSpace(body))
	if w == "" {
		return "", "", false
	}
	if r, found := joinRole(w); found {
		return r, w, true
	}
	if teamCode != "" && strings.EqualFold(w, teamCode) {
		return RoleAthlete, w, true
	}
	return "", "", false
}

// JoinText is a text to a team's number that may be part of signing up by
// text: a join keyword, or any text from a number not on the roster (the
// name a sign-up conversation asked for).
type JoinText struct {
	Team      Team
	Phone     phone.Number // the sender
	MessageID string       // the inbound text's id: each step of a conversation keys on it
	Body      string
	MemberID  string    // the roster entry the text was matched to; "" when none
	At        time.Time // when the carrier received it
}

// JoinAnswer is what joining made of one JoinText: Claimed when it was a
// step of a sign-up (no later two-way step sees it), and Reply, when not
// "", the text to answer its sender with (a one-to-one text from the
// number texted, not charged).
type JoinAnswer struct {
	Claimed bool
	Reply   string
}

// Joining signs numbers up by text. Join runs in the caller's transaction
// (the inbound batch's), in a fixed number of statements for the batch
// plus those of each step it acts on, and answers texts in their order:
// one JoinAnswer per text.
type Joining interface {
	Join(ctx context.Context, texts []JoinText) ([]JoinAnswer, error)
}
