// Package events defines the service's event envelope (spec §6) and the
// Publisher port that use cases call inside their transaction. The webhooks
// module implements the port.
package events

import (
	"context"
	"time"
)

// The event types of spec §6.
const (
	MessageReceived = "message.received"
	MessageStatus   = "message.status"
	MemberJoined    = "member.joined"
	MemberOptedOut  = "member.opted_out"
	MemberOptedIn   = "member.opted_in"
	// MessageResponse is an answer to a poll (a broadcast with reply
	// options), one per roster entry it is recorded for.
	MessageResponse = "message.response"
	WebhookTest     = "webhook.test"
)

// Subscribable lists the types a webhook may subscribe to (webhook.test is
// sent on request only and cannot be subscribed to).
var Subscribable = []string{MessageReceived, MessageStatus, MemberJoined, MemberOptedOut, MemberOptedIn, MessageResponse}

// Event is what a use case publishes: the team it belongs to, its type and
// its data payload (marshalled to JSON as the envelope's data).
type Event struct {
	TeamID string
	Type   string
	Data   any
}

// Team identifies the team in the envelope.
type Team struct {
	ID   string `json:"id"`
	Code string `json:"code"`
}

// Envelope is the body sent to integrators.
type Envelope struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	CreatedAt time.Time `json:"created_at"`
	Team      Team      `json:"team"`
	Data      any       `json:"data"`
}

// TimeFormat renders created_at with microseconds in UTC, as the spec requires.
const TimeFormat = "2006-01-02T15:04:05.000000Z"

// Publisher stores an event in the caller's transaction (carried by ctx);
// it is delivered only if that transaction commits.
type Publisher interface {
	Publish(ctx context.Context, ev Event) error
}

// BatchPublisher stores several events of one team at once, in the
// caller's transaction; publishers that can, implement it for bulk use cases.
type BatchPublisher interface {
	PublishMany(ctx context.Context, teamID string, evs []Event) error
}

// TeamsPublisher stores events of any teams at once, in the caller's
// transaction, at a cost that does not grow with the number of teams.
type TeamsPublisher interface {
	PublishTeams(ctx context.Context, evs []Event) error
}

// PublishAcross publishes evs, of any teams, in one batch when p supports
// it, else team by team (PublishAll), teams in the order they first appear.
func PublishAcross(ctx context.Context, p Publisher, evs []Event) error {
	if len(evs) == 0 {
		return nil
	}
	if b, ok := p.(TeamsPublisher); ok {
		return b.PublishTeams(ctx, evs)
	}
	byTeam := map[string][]Event{}
	var teams []string
	for _, ev := range evs {
		if _, ok := byTeam[ev.TeamID]; !ok {
			teams = append(teams, ev.TeamID)
		}
		byTeam[ev.TeamID] = append(byTeam[ev.TeamID], ev)
	}
	for _, t := range teams {
		if err := PublishAll(ctx, p, t, byTeam[t]); err != nil {
			return err
		}
	}
	return nil
}

// PublishAll publishes evs (all of teamID) in one batch when p supports it,
// else one by one.
func PublishAll(ctx context.Context, p Publisher, teamID string, evs []Event) error {
	if len(evs) == 0 {
		return nil
	}
	if b, ok := p.(BatchPublisher); ok {
		return b.PublishMany(ctx, teamID, evs)
	}
	for _, ev := range evs {
		if err := p.Publish(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}
