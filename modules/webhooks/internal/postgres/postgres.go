// Package postgres embeds the webhooks module's migrations.
package postgres

import (
	"embed"
	"io/fs"

	"github.com/teamtext/teamtext/platform/db"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations is the webhooks module's schema history.
func Migrations() db.MigrationSet {
	sub, _ := fs.Sub(migrationFiles, "migrations")
	return db.MigrationSet{Owner: "webhooks", Order: 50, FS: sub}
}
