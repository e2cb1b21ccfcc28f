package messagingapi_test

import (
	"errors"
	"testing"

	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
)

func TestParseAudience(t *testing.T) {
	t.Parallel()
	for _, a := range []messagingapi.Audience{messagingapi.AudienceAll, messagingapi.AudienceStaff, messagingapi.AudienceFamilies, messagingapi.AudienceGroup} {
		if got, err := messagingapi.ParseAudience(string(a)); err != nil || got != a {
			t.Errorf("ParseAudience(%q) = %q, %v; want it back", a, got, err)
		}
	}
	for _, s := range []string{"", "All", "everyone", "group:grp_1", " staff"} {
		if got, err := messagingapi.ParseAudience(s); !errors.Is(err, messagingapi.ErrUnknownAudience) || got != "" {
			t.Errorf("ParseAudience(%q) = %q, %v; want ErrUnknownAudience", s, got, err)
		}
	}
	if msg := messagingapi.ErrUnknownAudience.Error(); msg != "audience must be all, staff, families or group" {
		t.Errorf("the refusal reads %q, not the spec's message", msg)
	}
}

func TestParseSource(t *testing.T) {
	t.Parallel()
	for _, s := range []messagingapi.Source{messagingapi.SourceAPI, messagingapi.SourceDashboard, messagingapi.SourceSchedule, messagingapi.SourceCampaign} {
		if got, err := messagingapi.ParseSource(string(s)); err != nil || got != s {
			t.Errorf("ParseSource(%q) = %q, %v; want it back", s, got, err)
		}
	}
	if got, err := messagingapi.ParseSource("import"); err == nil || err.Error() != `unknown send source "import"` || got != "" {
		t.Errorf(`ParseSource("import") = %q, %v; want a refusal`, got, err)
	}
}

func TestParseMessageStatus(t *testing.T) {
	t.Parallel()
	for _, s := range []messagingapi.MessageStatus{messagingapi.MessagePendingApproval, messagingapi.MessageQueued,
		messagingapi.MessageSent, messagingapi.MessageRejected, messagingapi.MessageExpired} {
		if got, err := messagingapi.ParseMessageStatus(string(s)); err != nil || got != s {
			t.Errorf("ParseMessageStatus(%q) = %q, %v; want it back", s, got, err)
		}
	}
	// a delivery's status, not a message's
	if got, err := messagingapi.ParseMessageStatus("delivered"); err == nil || err.Error() != `unknown message status "delivered"` || got != "" {
		t.Errorf(`ParseMessageStatus("delivered") = %q, %v; want a refusal`, got, err)
	}
}
