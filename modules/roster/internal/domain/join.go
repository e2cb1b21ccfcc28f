package domain

import (
	"fmt"
	"strings"
	"time"

	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/fault"
)

// Joining a team by text or on the web. The join keywords are
// the contract's (rosterapi.JoinKeywords, rosterapi.MatchJoinKeyword):
// messaging reads them to know which texts to hand over, and team keywords
// may not use them.

// JoinKeywords are the words that sign a number up by text (the team's
// code too): JOIN and ATHLETE give role athlete, PARENT guardian.
func JoinKeywords() []string { return rosterapi.JoinKeywords() }

// MatchJoinKeyword reports whether a whole text is a join keyword of a team
// with code teamCode (rosterapi.MatchJoinKeyword).
func MatchJoinKeyword(body, teamCode string) (rosterapi.Role, string, bool) {
	return rosterapi.MatchJoinKeyword(body, teamCode)
}

// Conversation states. Only awaiting_name is open.
const (
	JoinAwaitingName = "awaiting_name" // the keyword was answered; the next text is the name
	JoinJoined       = "joined"        // the name came and the member was added
	JoinStopped      = "stopped"       // the number texted STOP half-way
	JoinExpired      = "expired"       // nobody answered within JoinTTL
	JoinEnded        = "ended"         // the number turned out to be on the roster already
)

// JoinTTL is how long a sign-up conversation waits for the name.
const JoinTTL = 24 * time.Hour

// Conversation is a sign-up by text: a join keyword from a number not on
// the roster opens it, asking for the name; the next text (not a keyword)
// is the name. Each step keys on the inbound text that made it.
type Conversation struct {
	ID               string
	TeamID           string
	Phone            string
	Role             rosterapi.Role
	State            string
	Keyword          string // the keyword as texted, upper case
	KeywordMessageID string
	NameMessageID    string // "" until the name came
	MemberID         string // the member added; "" until joined
	StartedAt        time.Time
	ExpiresAt        time.Time
	UpdatedAt        time.Time
}

// NewConversation opens a conversation for a keyword text received at at.
func NewConversation(id, teamID, phone, keyword, messageID string, role rosterapi.Role, at time.Time) *Conversation {
	at = at.UTC().Truncate(time.Microsecond)
	return &Conversation{ID: id, TeamID: teamID, Phone: phone, Role: role, State: JoinAwaitingName, Keyword: keyword,
		KeywordMessageID: messageID, StartedAt: at, ExpiresAt: at.Add(JoinTTL), UpdatedAt: at}
}

// Open reports whether the conversation still waits for the name at now:
// awaiting the name and not yet expired.
func (c *Conversation) Open(now time.Time) bool {
	return c.State == JoinAwaitingName && now.Before(c.ExpiresAt)
}

// Expired reports whether the conversation waits for a name it will no
// longer take (its JoinTTL passed).
func (c *Conversation) Expired(now time.Time) bool {
	return c.State == JoinAwaitingName && !now.Before(c.ExpiresAt)
}

// Close ends an open conversation in state (joined, stopped, expired,
// ended) at now; a closed one is a conflict.
func (c *Conversation) Close(state string, now time.Time) error {
	if c.State != JoinAwaitingName {
		return fault.Newf(fault.Conflict, fault.CodeConflict, "join conversation is %s", c.State)
	}
	c.State, c.UpdatedAt = state, now
	return nil
}

// Joined records the name text and the member it added.
func (c *Conversation) Joined(nameMessageID, memberID string, now time.Time) error {
	if err := c.Close(JoinJoined, now); err != nil {
		return err
	}
	c.NameMessageID, c.MemberID = nameMessageID, memberID
	return nil
}

// JoinStatus is a new joiner's status: pending when the team requires
// approval of joiners, else active.
func JoinStatus(approvalRequired bool) string {
	if approvalRequired {
		return StatusPending
	}
	return StatusActive
}

// JoinName checks the name a sign-up conversation was answered with, as a
// member's name (ValidName). ok false: ask again.
func JoinName(body string) (string, bool) {
	n, err := ValidName("name", body)
	return n, err == nil
}

// JoinDisclosure is what a joiner agrees to (CTIA): the team, the message
// frequency, "Msg & data rates may apply" and how to opt out.
func JoinDisclosure(teamName string) string {
	return fmt.Sprintf("By signing up you agree to get texts from %s's coaches and staff. Msg frequency varies. "+
		"Msg & data rates may apply. Reply HELP for help, STOP to opt out.", teamName)
}

// WebDisclosureVersion names the wording of the web sign-up page's consent
// checkbox (JoinDisclosure); a member's evidence records it. Change it
// whenever the wording changes.
const WebDisclosureVersion = "join-web-2026-12-07"

// Answers to sign-up texts. Each carries the team's name.

// JoinAskName answers a join keyword: what they join, and their name, please.
func JoinAskName(teamName string, role rosterapi.Role) string {
	who := "an athlete"
	if role == rosterapi.RoleGuardian {
		who = "a parent or guardian"
	}
	return fmt.Sprintf("%s: to join the team's texts as %s, reply with your full name. Msg frequency varies. "+
		"Msg & data rates may apply. Reply STOP to opt out.", teamName, who)
}

// JoinNameAgain answers a name that cannot be used.
func JoinNameAgain(teamName string) string {
	return fmt.Sprintf("%s: we didn't get a name. Reply with your full name (up to 100 characters) to join, or STOP to opt out.", teamName)
}

// JoinWelcome answers the name: joined, or waiting for a coach's approval.
func JoinWelcome(teamName, name string, pending bool) string {
	if pending {
		return fmt.Sprintf("%s: thanks, %s! A coach will approve your sign-up soon; you'll get the team's texts after that. "+
			"Msg & data rates may apply. Reply HELP for help, STOP to opt out.", teamName, name)
	}
	return fmt.Sprintf("%s: welcome, %s! You're on the team's texts. Msg frequency varies. "+
		"Msg & data rates may apply. Reply HELP for help, STOP to opt out.", teamName, name)
}

// JoinAlreadyListed answers a join keyword (or a web sign-up) from a number
// already on the roster.
func JoinAlreadyListed(teamName string) string {
	return fmt.Sprintf("%s: you're already on the roster for the team's texts. Reply HELP for help, STOP to opt out.", teamName)
}

// JoinOptedOut answers a join keyword from a number that opted out.
func JoinOptedOut(teamName string) string {
	return fmt.Sprintf("%s: this number opted out of the team's texts. Text START first, then text JOIN again to sign up.", teamName)
}

// JoinCodeText carries a web sign-up's code.
func JoinCodeText(teamName, code string) string {
	return fmt.Sprintf("%s: your sign-up code is %s. It expires in 10 minutes. If you did not ask for it, ignore this text.", teamName, code)
}

// JoinKeywordEvidence is the consent evidence of a sign-up by text: the
// keyword text and the name text, with their ids.
func JoinKeywordEvidence(c *Conversation, teamNumber, nameMessageID, nameBody string) string {
	ev := fmt.Sprintf("Texted %q (message %s) to %s, answered with the disclosure %q; then texted the name %q (message %s).",
		c.Keyword, c.KeywordMessageID, teamNumber, "Msg frequency varies. Msg & data rates may apply. Reply STOP to opt out.",
		TruncateText(nameBody, 100), nameMessageID)
	return TruncateText(ev, ConsentEvidenceMax)
}

// JoinCode is a web sign-up waiting for its phone to be confirmed: what
// the form said, and the code texted to the phone (hashed, as SignInCode).
type JoinCode struct {
	SignInCode        // Identity is the phone; the code's hash, attempts and expiry
	TeamID            string
	Name              string
	Role              rosterapi.Role
	DisclosureVersion string
	ClientIP          string
}

// NewJoinCode makes the code of a web sign-up: the code to text, and its record.
func NewJoinCode(id, teamID, phone, name string, role rosterapi.Role, clientIP string, now time.Time) (string, JoinCode) {
	code, rec := NewSignInCode(id, phone, now)
	return code, JoinCode{SignInCode: rec, TeamID: teamID, Name: name, Role: role, DisclosureVersion: WebDisclosureVersion, ClientIP: clientIP}
}

// WebJoinEvidence is the consent evidence of a web sign-up.
func WebJoinEvidence(c *JoinCode, teamCode string, at time.Time) string {
	ev := fmt.Sprintf("Signed up on the web page /join/%s, ticking the consent box (disclosure %s), from client address %s at %s; "+
		"confirmed the phone with the code texted to it.", teamCode, c.DisclosureVersion, c.ClientIP, at.UTC().Format(time.RFC3339))
	return TruncateText(ev, ConsentEvidenceMax)
}

// WebJoinRole reads the sign-up form's role: athlete or guardian.
func WebJoinRole(s string) (rosterapi.Role, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case string(rosterapi.RoleAthlete):
		return rosterapi.RoleAthlete, nil
	case string(rosterapi.RoleGuardian):
		return rosterapi.RoleGuardian, nil
	}
	return "", fault.Invalidf("choose Athlete or Guardian")
}
