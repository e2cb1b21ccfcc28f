package service

import (
	"context"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/fault"
)

// Numbers that keep failing and resends to failed recipients.

// ResendOnlyFailed is the one value of a resend's "only".
const ResendOnlyFailed = "failed"

// Resend is POST /messages/{id}/resend with {"only": "failed"}: a new
// message with the original's text and audience, to the original's
// recipients whose delivery failed with a code that says nothing permanent
// about the number (domain.Resendable), as they are on the roster now. It
// is a send like any other (Send): gates, billing,
// approval, opt-outs, undeliverable numbers and the send limits all apply.
//
// 404 for a message the team does not have; 409 conflict when the
// original was never sent (pending approval, rejected, expired), still has
// texts without a final status, has no such failed recipient, or was
// resent already (resend the resend to try its failures again).
func (s *Service) Resend(ctx context.Context, snd Sender, messageID, only string) (*Outcome, error) {
	if only != ResendOnlyFailed {
		return nil, fault.Invalidf(`only must be "failed"`)
	}
	var out *Outcome
	err := s.DB.Tx(ctx, func(ctx context.Context) error {
		orig, err := s.MessageStore.LockMessage(ctx, snd.TeamID, messageID) // locked: one resend at a time
		if err != nil {
			return mapNotFound(err, errMessageNotFound)
		}
		if err := orig.CheckResend(); err != nil {
			return err
		}
		prior, err := s.MessageStore.LiveResend(ctx, snd.TeamID, orig.ID)
		if err != nil {
			return err
		}
		if err := domain.ResentAlready(prior); err != nil {
			return err
		}
		phones, err := s.resendPhones(ctx, orig.ID)
		if err != nil {
			return err
		}
		if len(phones) == 0 {
			return fault.New(fault.Conflict, fault.CodeConflict, "no delivery of the message failed with a code worth resending (permanent failures and opt-outs are not resent)")
		}
		// A poll's resend is a poll of its own with the same options, open
		// for the default 7 days: its recipients' answers count on it.
		out, err = s.Send(ctx, snd, SendInput{Text: orig.Text, Audience: orig.Audience, GroupID: orig.GroupID, ResendOf: orig.ID, ReplyOptions: orig.ReplyOptions,
			MergeTags: domain.FindTags(orig.Text) != nil}) // tags in it were accepted when it was sent: the dashboard's
		return err
	})
	return out, err
}

// resendPhones are the numbers of a message's failed deliveries that a
// resend goes to.
func (s *Service) resendPhones(ctx context.Context, messageID string) (map[string]bool, error) {
	fs, err := s.MessageStore.FailedDeliveries(ctx, messageID)
	if err != nil {
		return nil, err
	}
	return domain.ResendPhones(fs, s.Classify), nil
}

// recipients resolves a send's audience; a resend's is the team's active
// members (opted-out, blocked and pending ones never) whose number is one
// of the original's resendable failures, so that a member who left the
// original's group, or a group since deleted, does not stop the resend.
func (s *Service) recipients(ctx context.Context, teamID, audience, groupID, resendOf string) ([]rosterapi.Recipient, error) {
	if resendOf == "" {
		return s.Audience.Recipients(ctx, teamID, audience, groupID)
	}
	phones, err := s.resendPhones(ctx, resendOf)
	if err != nil {
		return nil, err
	}
	all, err := s.Audience.Recipients(ctx, teamID, string(messagingapi.AudienceAll), "")
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, r := range all {
		if phones[string(r.Phone)] {
			out = append(out, r)
		}
	}
	return out, nil
}

// deliverable drops the recipients whose number is marked undeliverable
// and counts those numbers (each once).
func deliverable(rs []rosterapi.Recipient) ([]rosterapi.Recipient, int) {
	skipped := map[string]bool{}
	out := rs[:0:0]
	for _, r := range rs {
		if r.Undeliverable {
			skipped[string(r.Phone)] = true
			continue
		}
		out = append(out, r)
	}
	if len(skipped) == 0 {
		return rs, 0
	}
	return out, len(skipped)
}
