// Package webhooksapi is the webhooks module's contract for other modules:
// the e-mail it sends on a team's behalf. Plain types and interfaces only.
package webhooksapi

import "context"

// Mail is one e-mail to one roster entry.
type Mail struct {
	TeamID   string
	MemberID string
	To       string // the address
	Subject  string
	Body     string
}

// Mailer sends e-mail for a team, in the caller's transaction: it is
// recorded (GET /admin/v1/teams/{team_id}/notifications) and, with an SMTP
// relay configured, handed to it after the transaction commits.
type Mailer interface {
	Mail(ctx context.Context, m Mail) error
}
