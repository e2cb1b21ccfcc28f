package httpapi

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// CarrierAccount is a carrier account as the admin API shows it: never its
// credentials.
type CarrierAccount struct {
	ID        string    `json:"id"`
	Provider  string    `json:"provider" enum:"twilio,telnyx,bandwidth,simulator"`
	Name      string    `json:"name"`
	Default   bool      `json:"default" doc:"true for the one account the environment configures (CARRIER, TWILIO_*): numbers use it unless given another; it cannot be changed or deleted here."`
	APIURL    *string   `json:"api_url" doc:"The provider API's base URL the account uses; null: the provider's own."`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func accountFrom(a domain.CarrierAccount) CarrierAccount {
	out := CarrierAccount{ID: a.ID, Provider: string(a.Provider), Name: a.Name, Default: a.Default, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
	if a.APIURL != "" {
		u := a.APIURL
		out.APIURL = &u
	}
	return out
}

// credentialsDoc documents the credentials object.
const credentialsDoc = "The account's credentials, by provider: twilio: account_sid, auth_token. telnyx: api_key, public_key (standard base64 of " +
	"the raw 32-byte Ed25519 key that verifies Telnyx's webhooks), messaging_profile_id. bandwidth: account_id, username, password, " +
	"application_id, callback_username, callback_password. simulator: none ({}). Every field is required; sealed at rest under " +
	"SECRETS_KEY and never returned, logged or shown."

// AccountCreateBody is POST /carrier-accounts's body.
type AccountCreateBody struct {
	Provider    string            `json:"provider" enum:"twilio,telnyx,bandwidth,simulator"`
	Name        string            `json:"name" minLength:"1" maxLength:"100"`
	Credentials map[string]string `json:"credentials" doc:"See the operation's description."`
	APIURL      *string           `json:"api_url,omitempty" doc:"The provider API's base URL, e.g. a test fake; default: the provider's own."`
}

// AccountPatchBody is PATCH /carrier-accounts/{account_id}'s body.
type AccountPatchBody struct {
	Provider    *string           `json:"provider,omitempty" doc:"Cannot change: a different provider is 400 invalid_request."`
	Name        *string           `json:"name,omitempty" minLength:"1" maxLength:"100"`
	Credentials map[string]string `json:"credentials,omitempty" doc:"The whole new credentials object, checked as on create."`
	APIURL      *string           `json:"api_url,omitempty" doc:"\"\" returns to the provider's own API."`
}

type accountPath struct {
	AccountID string `path:"account_id"`
}

// adminCreateAccount serves admin-create-carrier-account.
func (h *handler) adminCreateAccount(ctx context.Context, in *struct{ Body AccountCreateBody }) (*httpapi.DataOutput[CarrierAccount], error) {
	creds := domain.Credentials(in.Body.Credentials)
	if creds == nil {
		creds = domain.Credentials{}
	}
	return httpapi.DataOf(accountFrom)(h.accounts.Create(ctx, domain.AccountInput{Provider: &in.Body.Provider, Name: &in.Body.Name,
		APIURL: in.Body.APIURL, Credentials: creds}))
}

// adminListAccounts serves admin-list-carrier-accounts.
func (h *handler) adminListAccounts(ctx context.Context, in *struct{ httpapi.PageParams }) (*httpapi.ListOutput[CarrierAccount], error) {
	as, err := h.accounts.List(ctx, in.Limit, in.Offset)
	if err != nil {
		return nil, err
	}
	out := make([]CarrierAccount, len(as))
	for i := range as {
		out[i] = accountFrom(as[i])
	}
	return httpapi.List(in.PageParams, out), nil
}

// adminGetAccount serves admin-get-carrier-account.
func (h *handler) adminGetAccount(ctx context.Context, in *accountPath) (*httpapi.DataOutput[CarrierAccount], error) {
	return httpapi.DataOf(accountFrom)(h.accounts.Get(ctx, in.AccountID))
}

// adminUpdateAccount serves admin-update-carrier-account.
func (h *handler) adminUpdateAccount(ctx context.Context, in *struct {
	AccountID string `path:"account_id"`
	Body      AccountPatchBody
}) (*httpapi.DataOutput[CarrierAccount], error) {
	return httpapi.DataOf(accountFrom)(h.accounts.Update(ctx, in.AccountID, domain.AccountInput{Provider: in.Body.Provider, Name: in.Body.Name,
		APIURL: in.Body.APIURL, Credentials: domain.Credentials(in.Body.Credentials)}))
}

// adminDeleteAccount serves admin-delete-carrier-account.
func (h *handler) adminDeleteAccount(ctx context.Context, in *accountPath) (*struct{}, error) {
	return nil, h.accounts.Delete(ctx, in.AccountID)
}
