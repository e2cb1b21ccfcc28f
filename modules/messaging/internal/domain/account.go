package domain

import (
	"encoding/base64"
	"net/url"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/teamtext/teamtext/platform/fault"
)

// Provider is a carrier an account is with.
type Provider string

// Providers.
const (
	ProviderSimulator Provider = "simulator"
	ProviderTwilio    Provider = "twilio"
	ProviderTelnyx    Provider = "telnyx"
	ProviderBandwidth Provider = "bandwidth"
)

// DefaultAccountID is the id of the account the environment configures
// (CARRIER, TWILIO_*): every sending number uses it unless given another.
const DefaultAccountID = "cac_default"

// credentialFields are each provider's credentials, all required.
var credentialFields = map[Provider][]string{
	ProviderSimulator: {},
	ProviderTwilio:    {"account_sid", "auth_token"},
	ProviderTelnyx:    {"api_key", "public_key", "messaging_profile_id"},
	ProviderBandwidth: {"account_id", "username", "password", "application_id", "callback_username", "callback_password"},
}

// ParseProvider checks a provider named in a request.
func ParseProvider(s string) (Provider, error) {
	p := Provider(s)
	if _, ok := credentialFields[p]; !ok {
		return "", fault.Invalidf("provider must be twilio, telnyx, bandwidth or simulator")
	}
	return p, nil
}

// Credentials are an account's secrets, by field name. They are sealed at
// rest and never returned, logged or shown.
type Credentials map[string]string

// CheckCredentials checks credentials for provider p: exactly its fields,
// each a non-empty single-line string of at most 500 characters, in the
// shapes the provider issues them. Messages name fields, never values.
func (p Provider) CheckCredentials(c Credentials) error {
	want := credentialFields[p]
	for k := range c {
		if !contains(want, k) {
			return fault.Invalidf("credentials: %s has no field %q (it takes %s)", p, k, fieldList(want))
		}
	}
	for _, k := range want {
		v, ok := c[k]
		if !ok || strings.TrimSpace(v) == "" {
			return fault.Invalidf("credentials: %s is required for %s (it takes %s)", k, p, fieldList(want))
		}
		if len(v) > 500 || !utf8.ValidString(v) || strings.IndexFunc(v, unicode.IsControl) >= 0 {
			return fault.Invalidf("credentials: %s must be one line of at most 500 characters", k)
		}
	}
	switch p {
	case ProviderTwilio:
		if sid := c["account_sid"]; len(sid) != 34 || !strings.HasPrefix(sid, "AC") || !alnum(sid) {
			return fault.Invalidf("credentials: account_sid must be AC followed by 32 letters and digits")
		}
		if !alnum(c["auth_token"]) {
			return fault.Invalidf("credentials: auth_token must be letters and digits")
		}
	case ProviderTelnyx:
		if raw, err := base64.StdEncoding.DecodeString(c["public_key"]); err != nil || len(raw) != 32 {
			return fault.Invalidf("credentials: public_key must be standard base64 of the raw 32-byte Ed25519 key")
		}
	}
	return nil
}

// LookupKey is the part of the credentials that is not secret and that
// tells the account's callbacks apart (a Twilio account's SID: every Twilio
// account posts to the same paths); "" for other providers.
func (p Provider) LookupKey(c Credentials) string {
	if p == ProviderTwilio {
		return c["account_sid"]
	}
	return ""
}

// CarrierAccount is an account at a carrier that teams' numbers send
// through. The default account is the environment's: it has no stored
// credentials and cannot be changed or deleted through the API.
type CarrierAccount struct {
	ID          string
	Provider    Provider
	Name        string
	APIURL      string      // "" : the provider's own API
	Credentials Credentials // nil unless opened for use
	Default     bool
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// AccountInput is an account's fields as a request gives them; nil fields
// are left as they are (on create, Provider, Name and Credentials are
// required).
type AccountInput struct {
	Provider    *string
	Name        *string
	APIURL      *string
	Credentials Credentials // nil: unchanged
}

// NewCarrierAccount checks a new account.
func NewCarrierAccount(id string, in AccountInput, now time.Time) (*CarrierAccount, error) {
	if in.Provider == nil {
		return nil, fault.Invalidf("provider is required")
	}
	p, err := ParseProvider(*in.Provider)
	if err != nil {
		return nil, err
	}
	if in.Name == nil {
		return nil, fault.Invalidf("name is required")
	}
	if in.Credentials == nil {
		in.Credentials = Credentials{}
	}
	a := &CarrierAccount{ID: id, Provider: p, CreatedAt: now, UpdatedAt: now}
	return a, a.Change(in, now)
}

// Change applies a request's fields. The provider cannot change: a
// different one is refused.
func (a *CarrierAccount) Change(in AccountInput, now time.Time) error {
	if a.Default {
		return fault.New(fault.Conflict, fault.CodeConflict, "the default account is configured by the environment (CARRIER, TWILIO_*); change it there")
	}
	if in.Provider != nil && Provider(*in.Provider) != a.Provider {
		return fault.Invalidf("provider cannot change; create another account")
	}
	if in.Name != nil {
		n := strings.TrimSpace(*in.Name)
		if n == "" || utf8.RuneCountInString(n) > 100 || !utf8.ValidString(n) || strings.IndexFunc(n, unicode.IsControl) >= 0 {
			return fault.Invalidf("name must be 1 to 100 characters on one line")
		}
		a.Name = n
	}
	if in.APIURL != nil {
		u := strings.TrimRight(strings.TrimSpace(*in.APIURL), "/")
		if u != "" {
			p, err := url.Parse(u)
			if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.User != nil || len(u) > 500 {
				return fault.Invalidf("api_url must be an absolute http(s) URL without credentials")
			}
		}
		a.APIURL = u
	}
	if in.Credentials != nil {
		if err := a.Provider.CheckCredentials(in.Credentials); err != nil {
			return err
		}
		a.Credentials = in.Credentials
	}
	a.UpdatedAt = now
	return nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func fieldList(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	s := append([]string(nil), ss...)
	sort.Strings(s)
	return strings.Join(s, ", ")
}

func alnum(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// SealedAccount is an account as stored: its credentials sealed.
type SealedAccount struct {
	Account   CarrierAccount // Credentials nil
	Sealed    []byte         // nil for the default account
	LookupKey string
	Deleted   bool
}
