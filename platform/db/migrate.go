package db

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"sort"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/uptrace/bun/migrate"
)

// MigrationSet is one owner's ordered SQL migrations (files named
// <version>_<name>.tx.up.sql). Each owner keeps its own bookkeeping table,
// bun_migrations_<owner>, so modules can later move out with their history.
type MigrationSet struct {
	Owner string // "platform", "roster", ...
	Order int    // sets run in ascending Order
	FS    fs.FS
}

//go:embed migrations/*.sql
var platformMigrations embed.FS

// PlatformMigrations is the platform's own schema (the shared test clock,
// the rate-limit log).
func PlatformMigrations() MigrationSet {
	sub, _ := fs.Sub(platformMigrations, "migrations")
	return MigrationSet{Owner: "platform", Order: 0, FS: sub}
}

// migrationLockID serialises concurrent migrators (several nodes starting).
const migrationLockID = 0x7465616d74657874 // "teamtext"

// Migrate applies River's schema and then every set in order, under one
// advisory lock so that nodes starting together do not race.
func Migrate(ctx context.Context, d *DB, sets []MigrationSet, log *slog.Logger) error {
	conn, err := d.Pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrate: acquire: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(migrationLockID)); err != nil {
		return fmt.Errorf("migrate: lock: %w", err)
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(migrationLockID))
	}()

	if err := migrateRiver(ctx, d.Pool, log); err != nil {
		return err
	}
	sorted := append([]MigrationSet(nil), sets...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Order < sorted[j].Order })
	for _, s := range sorted {
		m, err := migrator(d, s)
		if err != nil {
			return err
		}
		if err := m.Init(ctx); err != nil {
			return fmt.Errorf("migrate %s: init: %w", s.Owner, err)
		}
		group, err := m.Migrate(ctx)
		if err != nil {
			return fmt.Errorf("migrate %s: %w", s.Owner, err)
		}
		if !group.IsZero() {
			log.Info("migrations applied", "owner", s.Owner, "group", group.ID, "count", len(group.Migrations))
		}
	}
	return nil
}

func migrateRiver(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	rm, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("migrate river: %w", err)
	}
	res, err := rm.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return fmt.Errorf("migrate river: %w", err)
	}
	if len(res.Versions) > 0 {
		log.Info("migrations applied", "owner", "river", "count", len(res.Versions))
	}
	return nil
}

func migrator(d *DB, s MigrationSet) (*migrate.Migrator, error) {
	ms := migrate.NewMigrations()
	if err := ms.Discover(s.FS); err != nil {
		return nil, fmt.Errorf("migrate %s: discover: %w", s.Owner, err)
	}
	return migrate.NewMigrator(d.Bun, ms,
		migrate.WithTableName("bun_migrations_"+s.Owner),
		migrate.WithLocksTableName("bun_migration_locks_"+s.Owner),
		migrate.WithMarkAppliedOnSuccess(true),
	), nil
}

// Pending reports how many migrations of the sets (and River) are not applied;
// readiness requires zero.
func Pending(ctx context.Context, d *DB, sets []MigrationSet) (int, error) {
	rm, err := rivermigrate.New(riverpgxv5.New(d.Pool), nil)
	if err != nil {
		return 0, err
	}
	res, err := rm.Validate(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("validate river schema: %w", err)
	}
	n := 0
	if !res.OK {
		n += len(res.Messages)
	}
	for _, s := range sets {
		m, err := migrator(d, s)
		if err != nil {
			return 0, err
		}
		ms, err := m.MigrationsWithStatus(ctx)
		if err != nil {
			return 0, fmt.Errorf("status %s: %w", s.Owner, err)
		}
		n += len(ms.Unapplied())
	}
	return n, nil
}

// Embedded is a module's migration set from the files under dir of fsys
// (an embed.FS holding dir/*.sql).
func Embedded(owner string, order int, fsys fs.FS, dir string) MigrationSet {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(fmt.Sprintf("migrations of %s: %v", owner, err)) // a build-time mistake, not a runtime condition
	}
	return MigrationSet{Owner: owner, Order: order, FS: sub}
}
