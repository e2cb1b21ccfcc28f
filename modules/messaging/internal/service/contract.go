package service

import (
	"context"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
)

// Contract adapts the service to messagingapi.Sender.
type Contract struct{ svc *Service }

// NewContract returns the adapter.
func NewContract(s *Service) *Contract { return &Contract{svc: s} }

// Send implements messagingapi.Sender.
func (c *Contract) Send(ctx context.Context, r messagingapi.SendRequest) (messagingapi.SendResult, error) {
	snd := Sender{TeamID: r.TeamID, MemberID: r.MemberID, Source: domain.Source(r.Source), AllowUrgent: r.Urgent}
	out, err := c.svc.Send(ctx, snd, SendInput{Text: r.Text, TemplateID: r.TemplateID, Audience: r.Audience, GroupID: r.GroupID, Urgent: r.Urgent})
	if err != nil {
		return messagingapi.SendResult{}, err
	}
	return messagingapi.SendResult{MessageID: out.Message.ID, Status: out.Message.Status}, nil
}
