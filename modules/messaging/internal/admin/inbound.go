package admin

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/simulator"
	msghttp "github.com/teamtext/teamtext/modules/messaging/internal/httpapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/httpapi"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/phone"
)

// This file is the admin side of inbound texts: the simulator's injection
// of a text, staff replies from the inbox, and the HELP reply setting.

// maxInboundBody is the longest text the simulator accepts (a carrier's
// limit for a concatenated SMS).
const maxInboundBody = 1600

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
	HelpText        string `json:"help_text" doc:"What a HELP (or INFO) text is answered with."`
	HelpTextDefault bool   `json:"help_text_default" doc:"true when help_text is the default built from the team name."`
}

// InboundDeps are what the admin inbound operations need.
type InboundDeps struct {
	Service   *inbound.Service
	Simulator *simulator.Simulator // nil unless CARRIER=simulator
	DB        *db.DB
	Jobs      *jobs.Jobs
	Clock     clock.Clock
}

// RegisterInbound adds the admin operations of inbound texts.
func RegisterInbound(api huma.API, d InboundDeps) {
	httpapi.Register(api, huma.Operation{
		OperationID: "admin-simulator-inbound", Method: http.MethodPost, Path: "/simulator/inbound", Tags: []string{"Simulator"},
		DefaultStatus: http.StatusAccepted,
		Summary:       "Someone texts a team number",
		Description: "Carrier simulator only (409 conflict otherwise). Like a carrier's inbound callback, it stages the text and answers at once (202); " +
			"filing, in batches within moments, does the work: the text is stored for the team whose number is to (a number no team has is logged and dropped), " +
			"the member is matched, keywords act (STOP, START, HELP) and message.received is published (held while the team's renewal is overdue). " +
			"from and to accept any common US format. provider_message_id is generated unless given; a second text with the same " +
			"provider_message_id is a carrier retry and is ignored.",
	}, func(ctx context.Context, in *struct {
		Body struct {
			From              string `json:"from" doc:"The sender's number."`
			To                string `json:"to" doc:"A team number."`
			Body              string `json:"body" doc:"The text, up to 1600 characters."`
			ProviderMessageID string `json:"provider_message_id,omitempty" maxLength:"64" doc:"Optional; to simulate a carrier retrying its callback."`
		}
	}) (*httpapi.DataOutput[SimulatedText], error) {
		if d.Simulator == nil {
			return nil, fault.New(fault.Conflict, fault.CodeConflict, "the carrier is not the simulator")
		}
		from, err := phone.Parse(in.Body.From)
		if err != nil {
			return nil, fault.New(fault.Invalid, "invalid_phone", "from is not a valid US phone number")
		}
		to, err := phone.Parse(in.Body.To)
		if err != nil {
			return nil, fault.New(fault.Invalid, "invalid_phone", "to is not a valid US phone number")
		}
		if utf8.RuneCountInString(in.Body.Body) > maxInboundBody {
			return nil, fault.Invalidf("body must be at most %d characters", maxInboundBody)
		}
		a := inbound.Args{From: from.String(), To: to.String(), Body: in.Body.Body, ProviderMessageID: in.Body.ProviderMessageID,
			ReceivedAt: d.Clock.Now().UTC().Truncate(time.Microsecond)}
		if a.ProviderMessageID == "" {
			var b [16]byte
			_, _ = rand.Read(b[:])
			a.ProviderMessageID = "SMsim" + hex.EncodeToString(b[:])
		}
		err = d.DB.Tx(ctx, func(ctx context.Context) error {
			// The simulated carrier sees STOP and START itself, as carriers with opt-out handling do.
			if err := d.Simulator.NoteInbound(ctx, a.From, a.To, a.Body); err != nil {
				return err
			}
			return inbound.Enqueue(ctx, d.Service.Repo, a)
		})
		if err != nil {
			return nil, err
		}
		return httpapi.Data(SimulatedText(a)), nil
	}, http.StatusConflict)

	httpapi.Register(api, huma.Operation{
		OperationID: "admin-inbox-reply", Method: http.MethodPost, Path: "/teams/{team_id}/inbox/{message_id}/reply", Tags: []string{"Inbox"},
		Summary: "Reply to an inbox text",
		Description: "Texts the one person who sent the inbox item (never a broadcast): \"<team name>: \" followed by body, from the team number, " +
			"charged as credits like any text. Sets the item's replied_at (the first reply) and latest_reply, and marks it read. " +
			"member_id must be active, unblocked staff (head coach, team director, coach or board member; else 403 forbidden). " +
			"404 not_found when the text is not an inbox item of the team (held and keyword texts are not); 409 opted_out when the number " +
			"texted STOP; 402 payment_required while the renewal is overdue; 409 no_sender without a team number; 400 for an empty body.",
	}, func(ctx context.Context, in *struct {
		TeamID    string `path:"team_id"`
		MessageID string `path:"message_id"`
		Body      struct {
			MemberID string `json:"member_id" doc:"The staff member replying."`
			Body     string `json:"body" doc:"The reply, up to 1200 characters; merge tags are refused."`
		}
	}) (*httpapi.DataOutput[msghttp.InboxItem], error) {
		row, err := d.Service.Reply(ctx, inbound.ReplyInput{TeamID: in.TeamID, MessageID: in.MessageID, MemberID: in.Body.MemberID, Body: in.Body.Body})
		if err != nil {
			return nil, err
		}
		return httpapi.Data(msghttp.InboxItemFrom(row)), nil
	}, http.StatusPaymentRequired, http.StatusForbidden, http.StatusConflict)

	stags := []string{"Messaging settings"}
	settings := func(s *inbound.Settings) *httpapi.DataOutput[Settings] {
		return httpapi.Data(Settings{HelpText: s.HelpText, HelpTextDefault: s.HelpTextDefault})
	}
	httpapi.Register(api, huma.Operation{
		OperationID: "admin-get-messaging-settings", Method: http.MethodGet, Path: "/teams/{team_id}/messaging-settings", Tags: stags,
		Summary: "Get messaging settings", Description: "The team's HELP reply.",
	}, func(ctx context.Context, in *struct {
		TeamID string `path:"team_id"`
	}) (*httpapi.DataOutput[Settings], error) {
		s, err := d.Service.Settings(ctx, in.TeamID)
		if err != nil {
			return nil, err
		}
		return settings(s), nil
	})
	httpapi.Register(api, huma.Operation{
		OperationID: "admin-patch-messaging-settings", Method: http.MethodPatch, Path: "/teams/{team_id}/messaging-settings", Tags: stags,
		Summary: "Change messaging settings",
		Description: "help_text is what a HELP (or INFO) text is answered with. It must say how to opt out (contain STOP) and be at most 459 " +
			"characters; an empty string restores the default (an omitted or null help_text leaves it as it is): \"<team name>: texts from your team's coaches and staff. " +
			"Msg frequency varies. Msg & data rates may apply. Reply STOP to opt out.\"",
	}, func(ctx context.Context, in *struct {
		TeamID string `path:"team_id"`
		Body   struct {
			HelpText *string `json:"help_text,omitempty" required:"false" nullable:"true"`
		}
	}) (*httpapi.DataOutput[Settings], error) {
		s, err := d.Service.SetHelpText(ctx, in.TeamID, in.Body.HelpText)
		if err != nil {
			return nil, err
		}
		return settings(s), nil
	})
}
