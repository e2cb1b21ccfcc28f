package domain_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/platform/fault"
)

func TestValidConsent(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 24, 18, 0, 0, 123456789, time.UTC)
	us := now.Truncate(time.Microsecond)
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	local := time.Date(2026, 11, 20, 9, 30, 0, 0, ny)
	for _, tc := range []struct {
		name    string
		in      domain.ConsentInput
		want    domain.Consent
		wantErr string
	}{
		{name: "defaults", in: domain.ConsentInput{}, want: domain.Consent{Source: "api", At: us}},
		{name: "given source and time, kept in UTC to the microsecond", in: domain.ConsentInput{Source: "web_signup", At: &local, Evidence: "  https://example.org/join  "},
			want: domain.Consent{Source: "web_signup", At: local.UTC(), Evidence: "https://example.org/join"}},
		{name: "every known source", in: domain.ConsentInput{Source: "keyword"}, want: domain.Consent{Source: "keyword", At: us}},
		{name: "within the skew", in: domain.ConsentInput{At: at(domain.ConsentSkew)}, want: domain.Consent{Source: "api", At: now.Add(domain.ConsentSkew).Truncate(time.Microsecond)}},
		{name: "evidence of only spaces is none", in: domain.ConsentInput{Evidence: " \t "}, want: domain.Consent{Source: "api", At: us}},
		{name: "line breaks and tabs are text", in: domain.ConsentInput{Evidence: "Yes,\tsend me texts.\r\nSigned: Ann"},
			want: domain.Consent{Source: "api", At: us, Evidence: "Yes,\tsend me texts.\r\nSigned: Ann"}},
		{name: "evidence at the limit", in: domain.ConsentInput{Evidence: strings.Repeat("é", domain.ConsentEvidenceMax)},
			want: domain.Consent{Source: "api", At: us, Evidence: strings.Repeat("é", domain.ConsentEvidenceMax)}},
		{name: "unknown source", in: domain.ConsentInput{Source: "sms"}, wantErr: "consent.source must be one of dashboard, api, import, keyword, web_signup"},
		{name: "source in another case", in: domain.ConsentInput{Source: "API"}, wantErr: "consent.source"},
		{name: "in the future beyond the skew", in: domain.ConsentInput{At: at(domain.ConsentSkew + time.Second)}, wantErr: "consent.at must not be in the future"},
		{name: "before 2000", in: domain.ConsentInput{At: &time.Time{}}, wantErr: "consent.at must not be before 2000-01-01"},
		{name: "evidence too long", in: domain.ConsentInput{Evidence: strings.Repeat("a", domain.ConsentEvidenceMax+1)}, wantErr: "at most 1000 characters"},
		{name: "NUL in evidence", in: domain.ConsentInput{Evidence: "a\x00b"}, wantErr: "control characters"},
		{name: "C1 control in evidence", in: domain.ConsentInput{Evidence: "a\u0085b"}, wantErr: "control characters"},
		{name: "escape in evidence", in: domain.ConsentInput{Evidence: "a\x1bb"}, wantErr: "control characters"},
		{name: "invalid UTF-8 in evidence", in: domain.ConsentInput{Evidence: "a\xffb"}, wantErr: "UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := domain.ValidConsent(tc.in, domain.ConsentAPI, now)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				f, ok := fault.As(err)
				require.True(t, ok)
				require.Equal(t, fault.Invalid, f.Kind)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestTruncateText(t *testing.T) {
	t.Parallel()
	require.Equal(t, "stop", domain.TruncateText("stop", 4))
	require.Equal(t, "st", domain.TruncateText("stop", 2))
	require.Equal(t, "ñé", domain.TruncateText("ñéü", 2), "never inside a character")
}
