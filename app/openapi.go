package app

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/danielgtaylor/huma/v2"
	"github.com/spf13/cobra"
	"go.uber.org/fx"

	"github.com/teamtext/teamtext/platform/config"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// offlineDatabaseURL stands in for DATABASE_URL when the documents are
// rendered without one: the pool is never dialled.
const offlineDatabaseURL = "postgres://openapi@localhost:5432/offline"

// Documents builds the service's graph without a database (nothing is
// started, nothing is queried) and returns the public and admin
// APIs, whose documents (httpapi.Document) are exactly what `serve` serves;
// servers follow cfg.
func Documents(cfg config.Config, version string) (public, admin huma.API, err error) {
	if cfg.DatabaseURL == "" {
		cfg.DatabaseURL = offlineDatabaseURL
	}
	var pub httpapi.Public
	var adm httpapi.Admin
	app := fx.New(
		platformOptions(cfg, slog.New(slog.DiscardHandler), version, db.OpenLazy),
		modules(),
		fx.NopLogger,
		fx.Invoke(func(p httpapi.Public, a httpapi.Admin) { pub, adm = p, a }),
	)
	if err := app.Err(); err != nil {
		return nil, nil, fmt.Errorf("build service graph: %w", err)
	}
	return pub.API, adm.API, nil
}

func newOpenAPICmd(version string, getenv func(string) string, stdout io.Writer) *cobra.Command {
	var api, oas string
	var yaml bool
	cmd := &cobra.Command{
		Use:   "openapi",
		Short: "Print the OpenAPI document without a database (what /api/v1/openapi.json serves)",
		Long: "Print the public (or admin) API's OpenAPI document as the service serves it, built from the code " +
			"alone: no database, no listener. `make client` generates the Go client from it.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.Load(getenv, config.Need{})
			if err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			pub, adm, err := Documents(cfg, version)
			if err != nil {
				return err
			}
			var doc huma.API = pub
			switch api {
			case "public":
			case "admin":
				doc = adm
			default:
				return &ExitError{Code: 2, Err: fmt.Errorf("--api must be public or admin, got %q", api)}
			}
			b, err := httpapi.Document(doc, oas, yaml)
			if err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			_, err = stdout.Write(append(b, '\n'))
			return err
		},
	}
	cmd.Flags().StringVar(&api, "api", "public", "public (/api/v1) or admin (/admin/v1)")
	cmd.Flags().StringVar(&oas, "openapi", "3.1", "3.1, or 3.0 (the -3.0 variant)")
	cmd.Flags().BoolVar(&yaml, "yaml", false, "YAML instead of JSON")
	return cmd
}
