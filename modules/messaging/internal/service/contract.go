package service

import (
	"context"
	"fmt"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
)

// Contract adapts the service to messagingapi.Sender.
type Contract struct{ svc *Service }

// NewContract returns the adapter.
func NewContract(s *Service) *Contract { return &Contract{svc: s} }

// Send implements messagingapi.Sender.
func (c *Contract) Send(ctx context.Context, r messagingapi.SendRequest) (messagingapi.SendResult, error) {
	src, err := messagingapi.ParseSource(string(r.Source))
	if err != nil {
		return messagingapi.SendResult{}, fmt.Errorf("send for another module: %w", err)
	}
	snd := Sender{TeamID: r.TeamID, MemberID: r.MemberID, Source: src, AllowUrgent: r.Urgent}
	out, err := c.svc.Send(ctx, snd, SendInput{Text: r.Text, TemplateID: r.TemplateID, Audience: string(r.Audience), GroupID: r.GroupID, Urgent: r.Urgent})
	if err != nil {
		return messagingapi.SendResult{}, err
	}
	status, err := messagingapi.ParseMessageStatus(out.Message.Status)
	if err != nil {
		return messagingapi.SendResult{}, fmt.Errorf("send %s: %w", out.Message.ID, err)
	}
	return messagingapi.SendResult{MessageID: out.Message.ID, Status: status}, nil
}

// TemplateChoices implements messagingapi.Templates.
func (c *Contract) TemplateChoices(ctx context.Context, teamID string, limit int) ([]messagingapi.TemplateChoice, error) {
	ts, err := c.svc.Templates(ctx, teamID, limit, 0)
	if err != nil {
		return nil, err
	}
	out := make([]messagingapi.TemplateChoice, 0, min(len(ts), limit))
	for _, t := range ts[:min(len(ts), limit)] {
		out = append(out, messagingapi.TemplateChoice{ID: t.ID, Name: t.Name, Urgent: t.MessageType == domain.TypeUrgentAlert})
	}
	return out, nil
}
