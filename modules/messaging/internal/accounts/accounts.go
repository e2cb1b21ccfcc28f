// Package accounts holds messaging's carrier accounts: the accounts at
// Twilio, Telnyx, Bandwidth (or the simulator) that teams' numbers send
// through, with their credentials sealed at rest (platform/secrets), and
// the Router, the carrier.Carrier that hands each text to the adapter of
// the account its sending number uses.
//
// The default account (domain.DefaultAccountID) is the environment's:
// CARRIER and TWILIO_* configure it, it is listed with default true, and
// every number uses it unless given another, so a deployment that never
// adds an account sends exactly as before.
package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/secrets"
)

// Store keeps accounts (postgres.Repo). Reads by id answer
// domain.ErrNotFound (wrapped) for a missing or deleted account.
type Store interface {
	InsertAccount(ctx context.Context, s domain.SealedAccount) error
	Account(ctx context.Context, id string) (domain.SealedAccount, error)
	AccountByLookup(ctx context.Context, provider domain.Provider, key string) (domain.SealedAccount, error)
	// Accounts lists limit+1 accounts from offset, the default first.
	Accounts(ctx context.Context, limit, offset int) ([]domain.SealedAccount, error)
	UpdateAccount(ctx context.Context, id string, fn func(*domain.SealedAccount) error) error
	// DeleteAccount refuses (409) while a number uses the account.
	DeleteAccount(ctx context.Context, id string, at time.Time) error
	AccountIDs(ctx context.Context) ([]string, error)
	AccountsOfNumbers(ctx context.Context, numbers []string) (map[string]string, error)
	OtherAccounts(ctx context.Context) (bool, error)
	// MarkOutage and ClearOutage record an account's breaker opening (or a
	// probe failing) and closing, for every node's failover pass; they run
	// outside the caller's transaction.
	MarkOutage(ctx context.Context, accountID string) error
	ClearOutage(ctx context.Context, accountID string) error
}

// Service runs the accounts' use cases.
type Service struct {
	store   Store
	keys    *secrets.Keys
	clock   clock.Clock
	log     *slog.Logger
	primary domain.Provider // the default account's provider (CARRIER)
}

// New returns the service; provider is the environment's CARRIER.
func New(store Store, keys *secrets.Keys, clk clock.Clock, provider domain.Provider, log *slog.Logger) *Service {
	return &Service{store: store, keys: keys, clock: clk, log: log, primary: provider}
}

var errNotFound = fault.NotFoundf("carrier account not found")

// notFound turns the store's not-found into the API's 404.
func notFound(err error) error {
	if errors.Is(err, domain.ErrNotFound) {
		return errNotFound
	}
	return err
}

// view completes a stored account for the API: the default account's
// provider is the environment's.
func (s *Service) view(sa domain.SealedAccount) domain.CarrierAccount {
	a := sa.Account
	if a.Default {
		a.Provider = s.primary
	}
	return a
}

// Create adds an account: 201 with its view. Without SECRETS_KEY nothing
// can be sealed, and the answer is 409 conflict saying so.
func (s *Service) Create(ctx context.Context, in domain.AccountInput) (domain.CarrierAccount, error) {
	a, err := domain.NewCarrierAccount(id.New("cac"), in, s.clock.Now().UTC())
	if err != nil {
		return domain.CarrierAccount{}, err
	}
	sealed, err := s.seal(a)
	if err != nil {
		return domain.CarrierAccount{}, err
	}
	creds := a.Credentials
	a.Credentials = nil
	if err := s.store.InsertAccount(ctx, domain.SealedAccount{Account: *a, Sealed: sealed, LookupKey: a.Provider.LookupKey(creds)}); err != nil {
		return domain.CarrierAccount{}, err
	}
	s.log.Info("carrier account added", "account_id", a.ID, "provider", a.Provider)
	return *a, nil
}

// Get returns an account's view.
func (s *Service) Get(ctx context.Context, accountID string) (domain.CarrierAccount, error) {
	sa, err := s.store.Account(ctx, accountID)
	if err != nil {
		return domain.CarrierAccount{}, notFound(err)
	}
	return s.view(sa), nil
}

// List returns limit+1 accounts from offset, the default first.
func (s *Service) List(ctx context.Context, limit, offset int) ([]domain.CarrierAccount, error) {
	sas, err := s.store.Accounts(ctx, limit, offset)
	if err != nil {
		return nil, err
	}
	out := make([]domain.CarrierAccount, len(sas))
	for i := range sas {
		out[i] = s.view(sas[i])
	}
	return out, nil
}

// Update changes an account's name, api_url or credentials (the whole
// object, checked as on create). The default account answers 409.
func (s *Service) Update(ctx context.Context, accountID string, in domain.AccountInput) (domain.CarrierAccount, error) {
	var out domain.CarrierAccount
	err := s.store.UpdateAccount(ctx, accountID, func(sa *domain.SealedAccount) error {
		a := sa.Account
		if err := a.Change(in, s.clock.Now().UTC()); err != nil {
			return err
		}
		if in.Credentials != nil {
			sealed, err := s.seal(&a)
			if err != nil {
				return err
			}
			sa.Sealed, sa.LookupKey = sealed, a.Provider.LookupKey(a.Credentials)
		}
		a.Credentials = nil
		sa.Account = a
		out = a
		return nil
	})
	if err != nil {
		return domain.CarrierAccount{}, notFound(err)
	}
	s.log.Info("carrier account changed", "account_id", accountID, "credentials_changed", in.Credentials != nil)
	return out, nil
}

// Delete removes an account no number uses (409 otherwise; 409 for the
// default). A deleted account answers 404 from then on.
func (s *Service) Delete(ctx context.Context, accountID string) error {
	if err := s.store.DeleteAccount(ctx, accountID, s.clock.Now().UTC()); err != nil {
		return notFound(err)
	}
	s.log.Info("carrier account deleted", "account_id", accountID)
	return nil
}

// Usable answers 400 invalid_request unless the account exists (the
// default included): a number can be moved to it.
func (s *Service) Usable(ctx context.Context, accountID string) error {
	if _, err := s.store.Account(ctx, accountID); err != nil {
		if errors.Is(err, domain.ErrNotFound) {
			return fault.Invalidf("carrier_account_id: no carrier account %q", accountID)
		}
		return err
	}
	return nil
}

// Open returns an account with its credentials, for its adapter. The
// default account has none (the environment holds them).
func (s *Service) Open(ctx context.Context, accountID string) (domain.CarrierAccount, error) {
	sa, err := s.store.Account(ctx, accountID)
	if err != nil {
		return domain.CarrierAccount{}, notFound(err)
	}
	return s.open(sa)
}

// OpenByLookup opens the account of provider whose lookup key is key (a
// Twilio account SID).
func (s *Service) OpenByLookup(ctx context.Context, provider domain.Provider, key string) (domain.CarrierAccount, error) {
	sa, err := s.store.AccountByLookup(ctx, provider, key)
	if err != nil {
		return domain.CarrierAccount{}, notFound(err)
	}
	return s.open(sa)
}

func (s *Service) open(sa domain.SealedAccount) (domain.CarrierAccount, error) {
	a := s.view(sa)
	if a.Default {
		return a, nil
	}
	plain, err := s.keys.Open(sa.Sealed, a.ID)
	if err != nil {
		return domain.CarrierAccount{}, fmt.Errorf("open carrier account %s: %w", a.ID, err)
	}
	if err := json.Unmarshal(plain, &a.Credentials); err != nil {
		return domain.CarrierAccount{}, fmt.Errorf("decode carrier account %s: %w", a.ID, err)
	}
	return a, nil
}

func (s *Service) seal(a *domain.CarrierAccount) ([]byte, error) {
	if !s.keys.Configured() {
		return nil, fault.New(fault.Conflict, fault.CodeConflict,
			"carrier accounts need SECRETS_KEY on every node to keep their credentials; ask the operator to set it")
	}
	plain, err := json.Marshal(a.Credentials)
	if err != nil {
		return nil, fmt.Errorf("encode credentials: %w", err)
	}
	return s.keys.Seal(plain, a.ID)
}

// Rotate reseals every account not sealed under the current SECRETS_KEY
// (opening it with SECRETS_KEY_PREVIOUS), one row at a time under its
// lock, and reports progress after each. It returns how many it resealed.
func (s *Service) Rotate(ctx context.Context, progress func(done, total int)) (int, error) {
	ids, err := s.store.AccountIDs(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for i, accountID := range ids {
		err := s.store.UpdateAccount(ctx, accountID, func(sa *domain.SealedAccount) error {
			if s.keys.Current(sa.Sealed) {
				return errUnchanged
			}
			plain, err := s.keys.Open(sa.Sealed, accountID)
			if err != nil {
				return fmt.Errorf("open carrier account %s (is SECRETS_KEY_PREVIOUS its key?): %w", accountID, err)
			}
			if sa.Sealed, err = s.keys.Seal(plain, accountID); err != nil {
				return err
			}
			n++
			return nil
		})
		if err != nil && !errors.Is(err, errUnchanged) && !errors.Is(err, domain.ErrNotFound) {
			return n, err
		}
		if progress != nil {
			progress(i+1, len(ids))
		}
	}
	return n, nil
}

// errUnchanged leaves a row as it is (already under the current key).
var errUnchanged = errors.New("already sealed under the current key")
