package service

import (
	"context"

	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
)

// Contract adapts the service to messagingapi.Sender.
type Contract struct{ svc *Service }

// NewContract returns the adapter.
func NewContract(s *Service) *Contract { return &Contract{svc: s} }

// Send implements messagingapi.Sender.
func (c *Contract) Send(ctx context.Context, r messagingapi.SendRequest) (messagingapi.SendResult, error) {
	snd := Sender{TeamID: r.TeamID, MemberID: r.MemberID, Source: r.Source, AllowUrgent: r.Urgent}
	in := SendInput{Text: r.Text, TemplateID: r.TemplateID, Audience: r.Audience, GroupID: r.GroupID, Urgent: r.Urgent}
	var out messagingapi.SendResult
	err := c.svc.DB.Tx(ctx, func(ctx context.Context) error {
		p, err := c.svc.prepare(ctx, snd, in, true)
		if err != nil {
			return err
		}
		m, err := c.svc.createMessage(ctx, snd, in, p, "")
		if err != nil {
			return err
		}
		out = messagingapi.SendResult{MessageID: m.ID, Status: m.Status}
		return nil
	})
	return out, err
}
