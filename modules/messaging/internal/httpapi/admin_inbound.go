package httpapi

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/httpapi/view"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/settings"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// This file is the admin side of inbound texts: the simulator's injection
// of a text, staff replies from the inbox, and the HELP reply setting.

// SimulatedText is a text injected into the simulator.
type SimulatedText struct {
	From              string    `json:"from" doc:"The sender, E.164."`
	To                string    `json:"to" doc:"The team number texted, E.164."`
	Body              string    `json:"body"`
	ProviderMessageID string    `json:"provider_message_id" doc:"The simulated carrier's id: ingestion dedupes on it."`
	ReceivedAt        time.Time `json:"received_at"`
}

// Settings are a team's messaging settings.
type Settings struct {
	HelpText        string     `json:"help_text" doc:"What a HELP (or INFO) text is answered with."`
	HelpTextDefault bool       `json:"help_text_default" doc:"true when help_text is the default built from the team name."`
	QuietHours      QuietHours `json:"quiet_hours" doc:"When routine texts are held, in each recipient's local time."`
	CarrierFailover bool       `json:"carrier_failover" doc:"Whether, while a carrier account the team sends through has been down for CARRIER_FAILOVER_AFTER (30 s by default), the team's queued texts move to its numbers on healthy accounts. Default false. The recipients' usual number (the sticky sender) is kept for new sends once the account is back; each delivery records the number it went from."`
}

// QuietHours is a team's quiet-hours rule.
type QuietHours struct {
	Enabled        bool   `json:"enabled" doc:"Whether routine texts are held between start and end. Until the team chooses, QUIET_HOURS_DEFAULT (off unless the operator set it)."`
	EnabledDefault bool   `json:"enabled_default" doc:"true while the team has not chosen and enabled follows QUIET_HOURS_DEFAULT."`
	Start          string `json:"start" pattern:"^[0-2][0-9]:[0-5][0-9]$" example:"21:00" doc:"When the quiet window starts, HH:MM in the recipient's local time; default 21:00."`
	End            string `json:"end" pattern:"^[0-2][0-9]:[0-5][0-9]$" example:"08:00" doc:"When it ends, HH:MM in the recipient's local time; default 08:00. Before start, the window crosses midnight."`
}

// QuietHoursPatch changes any of a team's quiet-hours fields.
type QuietHoursPatch struct {
	Enabled *bool   `json:"enabled,omitempty" required:"false" doc:"Turn the rule on or off for the team."`
	Start   *string `json:"start,omitempty" required:"false" example:"21:00" doc:"HH:MM, 00:00 to 23:59; must differ from end."`
	End     *string `json:"end,omitempty" required:"false" example:"08:00" doc:"HH:MM, 00:00 to 23:59; must differ from start."`
}

// settingsOut renders a team's messaging settings.
func settingsOut(a settings.All) *httpapi.DataOutput[Settings] {
	q := a.Quiet
	return httpapi.Data(Settings{HelpText: a.Help.HelpText, HelpTextDefault: a.Help.HelpTextDefault, QuietHours: QuietHours{Enabled: q.Enabled,
		EnabledDefault: q.EnabledDefault, Start: q.Start.String(), End: q.End.String()}, CarrierFailover: a.CarrierFailover})
}

// adminSimulatorInbound serves admin-simulator-inbound.
func (h *handler) adminSimulatorInbound(ctx context.Context, in *struct {
	Body struct {
		From              string `json:"from" doc:"The sender's number."`
		To                string `json:"to" doc:"A team number."`
		Body              string `json:"body" doc:"The text, up to 1600 characters."`
		ProviderMessageID string `json:"provider_message_id,omitempty" maxLength:"64" doc:"Optional; to simulate a carrier retrying its callback."`
	}
}) (*httpapi.DataOutput[SimulatedText], error) {
	if h.simulated == nil {
		return nil, fault.New(fault.Conflict, fault.CodeConflict, "the carrier is not the simulator")
	}
	a, err := h.simulated.Receive(ctx, inbound.SimulatedText{From: in.Body.From, To: in.Body.To, Body: in.Body.Body,
		ProviderMessageID: in.Body.ProviderMessageID})
	if err != nil {
		return nil, err
	}
	return httpapi.Data(SimulatedText(a)), nil
}

// adminInboxReply serves admin-inbox-reply.
func (h *handler) adminInboxReply(ctx context.Context, in *struct {
	TeamID    string `path:"team_id"`
	MessageID string `path:"message_id"`
	Body      struct {
		MemberID string `json:"member_id" doc:"The staff member replying."`
		Body     string `json:"body" doc:"The reply, up to 1200 characters; merge tags are refused."`
	}
}) (*httpapi.DataOutput[view.InboxItem], error) {
	row, err := h.replies.Reply(ctx, inbound.ReplyInput{TeamID: in.TeamID, MessageID: in.MessageID, MemberID: in.Body.MemberID, Body: in.Body.Body})
	if err != nil {
		return nil, err
	}
	return httpapi.Data(view.InboxItemFrom(row)), nil
}

// adminGetMessagingSettings serves admin-get-messaging-settings.
func (h *handler) adminGetMessagingSettings(ctx context.Context, in *struct {
	TeamID string `path:"team_id"`
}) (*httpapi.DataOutput[Settings], error) {
	a, err := h.settings.All(ctx, in.TeamID)
	if err != nil {
		return nil, err
	}
	return settingsOut(a), nil
}

// adminPatchMessagingSettings serves admin-patch-messaging-settings: the
// fields given change together, in one transaction, or none does.
func (h *handler) adminPatchMessagingSettings(ctx context.Context, in *struct {
	TeamID string `path:"team_id"`
	Body   struct {
		HelpText        *string          `json:"help_text,omitempty" required:"false" nullable:"true"`
		QuietHours      *QuietHoursPatch `json:"quiet_hours,omitempty" required:"false" doc:"Any of enabled, start and end; the others are kept."`
		CarrierFailover *bool            `json:"carrier_failover,omitempty" required:"false" doc:"Turn failover between the team's carrier accounts on or off."`
	}
}) (*httpapi.DataOutput[Settings], error) {
	p := settings.Patch{HelpText: in.Body.HelpText, CarrierFailover: in.Body.CarrierFailover}
	if q := in.Body.QuietHours; q != nil {
		p.QuietHours = &settings.QuietHoursPatch{Enabled: q.Enabled, Start: q.Start, End: q.End}
	}
	a, err := h.settings.Change(ctx, in.TeamID, p)
	if err != nil {
		return nil, err
	}
	return settingsOut(a), nil
}
