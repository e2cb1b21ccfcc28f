package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/fault"
)

const accountColumns = `id, provider, name, api_url, sealed, lookup_key, is_default, created_at, updated_at, deleted_at IS NOT NULL`

func scanAccount(row interface{ Scan(...any) error }) (domain.SealedAccount, error) {
	var s domain.SealedAccount
	a := &s.Account
	var provider string
	err := row.Scan(&a.ID, &provider, &a.Name, &a.APIURL, &s.Sealed, &s.LookupKey, &a.Default, &a.CreatedAt, &a.UpdatedAt, &s.Deleted)
	a.Provider = domain.Provider(provider)
	return s, err
}

// InsertAccount stores a new account with its sealed credentials.
func (r *Repo) InsertAccount(ctx context.Context, s domain.SealedAccount) error {
	a := s.Account
	_, err := r.db.IDB(ctx).ExecContext(ctx, `INSERT INTO messaging_carrier_accounts (id, provider, name, api_url, sealed, lookup_key, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, a.ID, string(a.Provider), a.Name, a.APIURL, s.Sealed, s.LookupKey, a.CreatedAt, a.UpdatedAt)
	if err != nil {
		return fmt.Errorf("insert carrier account: %w", err)
	}
	return nil
}

// Account loads an account that is not deleted; domain.ErrNotFound
// (wrapped) otherwise.
func (r *Repo) Account(ctx context.Context, id string) (domain.SealedAccount, error) {
	s, err := scanAccount(r.db.IDB(ctx).QueryRowContext(ctx, `SELECT `+accountColumns+` FROM messaging_carrier_accounts
WHERE id = ? AND deleted_at IS NULL`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return s, fmt.Errorf("carrier account %s: %w", id, domain.ErrNotFound)
	}
	if err != nil {
		return s, fmt.Errorf("select carrier account: %w", err)
	}
	return s, nil
}

// AccountByLookup finds the account of provider with lookup key (a Twilio
// account's SID); domain.ErrNotFound (wrapped) when none.
func (r *Repo) AccountByLookup(ctx context.Context, provider domain.Provider, key string) (domain.SealedAccount, error) {
	s, err := scanAccount(r.db.IDB(ctx).QueryRowContext(ctx, `SELECT `+accountColumns+` FROM messaging_carrier_accounts
WHERE provider = ? AND lookup_key = ? AND lookup_key <> '' AND deleted_at IS NULL ORDER BY created_at LIMIT 1`, string(provider), key))
	if errors.Is(err, sql.ErrNoRows) {
		return s, fmt.Errorf("carrier account by key: %w", domain.ErrNotFound)
	}
	if err != nil {
		return s, fmt.Errorf("select carrier account by key: %w", err)
	}
	return s, nil
}

// Accounts lists accounts that are not deleted, the default first and then
// oldest first, limit+1 rows from offset.
func (r *Repo) Accounts(ctx context.Context, limit, offset int) ([]domain.SealedAccount, error) {
	rows, err := r.db.IDB(ctx).QueryContext(ctx, `SELECT `+accountColumns+` FROM messaging_carrier_accounts WHERE deleted_at IS NULL
ORDER BY is_default DESC, created_at, id LIMIT ? OFFSET ?`, limit+1, offset)
	if err != nil {
		return nil, fmt.Errorf("list carrier accounts: %w", err)
	}
	defer rows.Close()
	var out []domain.SealedAccount
	for rows.Next() {
		s, err := scanAccount(rows)
		if err != nil {
			return nil, fmt.Errorf("scan carrier account: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// UpdateAccount loads an account under its row lock, lets fn change it and
// stores the result, in the caller's transaction (or its own statement
// pair); fn's error leaves it unchanged.
func (r *Repo) UpdateAccount(ctx context.Context, id string, fn func(*domain.SealedAccount) error) error {
	return r.db.Tx(ctx, func(ctx context.Context) error {
		idb := r.db.IDB(ctx)
		s, err := scanAccount(idb.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM messaging_carrier_accounts
WHERE id = ? AND deleted_at IS NULL FOR UPDATE`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("carrier account %s: %w", id, domain.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("lock carrier account: %w", err)
		}
		if err := fn(&s); err != nil {
			return err
		}
		a := s.Account
		_, err = idb.ExecContext(ctx, `UPDATE messaging_carrier_accounts SET name = ?, api_url = ?, sealed = ?, lookup_key = ?, updated_at = ?
WHERE id = ?`, a.Name, a.APIURL, s.Sealed, s.LookupKey, a.UpdatedAt, a.ID)
		if err != nil {
			return fmt.Errorf("update carrier account: %w", err)
		}
		return nil
	})
}

// DeleteAccount marks an account deleted, unless a number uses it (409
// conflict) or it is the default; domain.ErrNotFound (wrapped) when there
// is no such account.
func (r *Repo) DeleteAccount(ctx context.Context, id string, at time.Time) error {
	return r.db.Tx(ctx, func(ctx context.Context) error {
		idb := r.db.IDB(ctx)
		var isDefault bool
		err := idb.QueryRowContext(ctx, `SELECT is_default FROM messaging_carrier_accounts WHERE id = ? AND deleted_at IS NULL FOR UPDATE`, id).Scan(&isDefault)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("carrier account %s: %w", id, domain.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("lock carrier account: %w", err)
		}
		if isDefault {
			return fault.New(fault.Conflict, fault.CodeConflict, "the default account is the environment's; it cannot be deleted")
		}
		var used int
		if err := idb.QueryRowContext(ctx, `SELECT count(*) FROM messaging_numbers WHERE carrier_account_id = ?`, id).Scan(&used); err != nil {
			return fmt.Errorf("count numbers of account: %w", err)
		}
		if used > 0 {
			return fault.New(fault.Conflict, fault.CodeConflict,
				fmt.Sprintf("%d sending number(s) use this account; move them to another account first", used))
		}
		_, err = idb.ExecContext(ctx, `UPDATE messaging_carrier_accounts SET deleted_at = ?, sealed = NULL, updated_at = ? WHERE id = ?`, at, at, id)
		if err != nil {
			return fmt.Errorf("delete carrier account: %w", err)
		}
		return nil
	})
}

// AccountIDs returns the ids of every account with sealed credentials (a
// rotation walks them).
func (r *Repo) AccountIDs(ctx context.Context) ([]string, error) {
	rows, err := r.db.IDB(ctx).QueryContext(ctx, `SELECT id FROM messaging_carrier_accounts WHERE sealed IS NOT NULL ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list sealed accounts: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// AccountsOfNumbers returns the account each of numbers sends through;
// numbers without a row (a primary number messaging has not written yet)
// are absent: they use the default.
func (r *Repo) AccountsOfNumbers(ctx context.Context, numbers []string) (map[string]string, error) {
	rows, err := r.db.IDB(ctx).QueryContext(ctx, `SELECT number, carrier_account_id FROM messaging_numbers WHERE number = ANY(?::text[])`,
		textArray(numbers))
	if err != nil {
		return nil, fmt.Errorf("accounts of numbers: %w", err)
	}
	defer rows.Close()
	out := make(map[string]string, len(numbers))
	for rows.Next() {
		var n, a string
		if err := rows.Scan(&n, &a); err != nil {
			return nil, err
		}
		out[n] = a
	}
	return out, rows.Err()
}

// OtherAccounts reports whether any account other than the default exists
// (a carrier router then plans every send as paced).
func (r *Repo) OtherAccounts(ctx context.Context) (bool, error) {
	var any bool
	err := r.db.IDB(ctx).QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM messaging_carrier_accounts
WHERE NOT is_default AND deleted_at IS NULL AND provider <> 'simulator')`).Scan(&any)
	if err != nil {
		return false, fmt.Errorf("any carrier account: %w", err)
	}
	return any, nil
}
