package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamtext/teamtext/modules/messaging"
	"github.com/teamtext/teamtext/platform/config"
	"github.com/teamtext/teamtext/platform/db"
)

// ExitError carries a process exit code (2 for configuration errors).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Main runs the CLI with args and returns the process exit code.
func Main(args []string, version string, stdout, stderr io.Writer) int {
	root := NewRoot(version, os.Getenv, stdout, stderr)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		var ee *ExitError
		if errors.As(err, &ee) {
			fmt.Fprintln(stderr, "teamtext:", ee.Err)
			return ee.Code
		}
		fmt.Fprintln(stderr, "teamtext:", err)
		return 1
	}
	return 0
}

// NewRoot builds the command tree.
func NewRoot(version string, getenv func(string) string, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "teamtext",
		Short:         "Self-hosted group texting for sports teams and clubs",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	load := func(need config.Need) (config.Config, *slog.Logger, error) {
		cfg, err := config.Load(getenv, need)
		if err != nil {
			return cfg, nil, &ExitError{Code: 2, Err: err}
		}
		log := slog.New(slog.NewJSONHandler(stdout, &slog.HandlerOptions{Level: cfg.LogLevel}))
		return cfg, log, nil
	}

	var seed bool
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Run the public API, the admin API and the job workers",
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, log, err := load(config.Need{Database: true, AdminToken: true})
			if err != nil {
				return err
			}
			return runServe(cmd.Context(), cfg, log, version, seed, stdout)
		},
	}
	serve.Flags().BoolVar(&seed, "seed-demo", false, "on first start, create a demo team, head coach and API key, and print the key")

	migrate := &cobra.Command{
		Use:   "migrate",
		Short: "Apply database migrations and exit",
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, log, err := load(config.Need{Database: true})
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 5*time.Minute)
			defer cancel()
			d, err := db.Open(ctx, cfg.DatabaseURL, 4)
			if err != nil {
				return err
			}
			defer d.Close()
			if err := db.Migrate(ctx, d, Migrations(), log); err != nil {
				return err
			}
			log.Info("migrations up to date")
			return nil
		},
	}

	secretsCmd := &cobra.Command{Use: "secrets", Short: "Manage the keys carrier accounts' credentials are sealed with"}
	secretsCmd.AddCommand(&cobra.Command{
		Use:   "rotate",
		Short: "Reseal every carrier account's credentials under SECRETS_KEY (SECRETS_KEY_PREVIOUS opens the old ones)",
		Long: "Run after setting the new key as SECRETS_KEY and the old one as SECRETS_KEY_PREVIOUS on every node. It reseals each account " +
			"not yet sealed under SECRETS_KEY, one at a time, and can be run again safely. When it reports 0 left, remove SECRETS_KEY_PREVIOUS.",
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, log, err := load(config.Need{Database: true})
			if err != nil {
				return err
			}
			if cfg.SecretsKey == "" {
				return &ExitError{Code: 2, Err: fmt.Errorf("config: SECRETS_KEY is required to rotate")}
			}
			d, err := db.Open(cmd.Context(), cfg.DatabaseURL, 4)
			if err != nil {
				return err
			}
			defer d.Close()
			n, err := messaging.RotateSecrets(cmd.Context(), d, cfg, log, func(done, total int) {
				fmt.Fprintf(stdout, "\rresealed accounts: %d/%d", done, total)
			})
			fmt.Fprintln(stdout)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%d account(s) resealed under SECRETS_KEY; every account now opens without SECRETS_KEY_PREVIOUS\n", n)
			return nil
		},
	})

	ver := &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Run:   func(cmd *cobra.Command, _ []string) { fmt.Fprintln(stdout, version) },
	}
	root.AddCommand(serve, migrate, newAdminCmd(getenv, stdout), newOpenAPICmd(version, getenv, stdout), newHealthcheckCmd(getenv, stdout), secretsCmd, ver)
	return root
}

// drainFor marks the process not ready and keeps serving for delay, so a
// load balancer's health check sees the 503 and stops sending before the
// listeners close. A second signal (or the parent's end) cuts it short.
func drainFor(parent context.Context, drain *draining, delay time.Duration, sig <-chan os.Signal) {
	drain.Store(true)
	if delay <= 0 {
		return
	}
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-sig:
	case <-parent.Done():
	}
}

func runServe(parent context.Context, cfg config.Config, log *slog.Logger, version string, seed bool, stdout io.Writer) error {
	drain := &draining{}
	app := newServeApp(cfg, log, version, drain)
	if err := app.Err(); err != nil {
		return fmt.Errorf("build service: %w", err)
	}
	// Catch signals before the listeners open: a SIGTERM that arrives between
	// "listening" and here must still stop gracefully, not kill the process.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	startCtx, cancel := context.WithTimeout(parent, 30*time.Second)
	defer cancel()
	if err := app.Start(startCtx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	log.Info("teamtext started", "version", version, "clock", cfg.Clock, "carrier", cfg.Carrier)
	if seed {
		if err := seedDemo(parent, "http://"+cfg.AdminAddr, cfg.AdminToken, stdout); err != nil {
			log.Error("seed demo data", "err", err)
		}
	}
	select {
	case s := <-sig:
		log.Info("shutting down", "signal", s.String(), "drain_delay", cfg.DrainDelay.String())
		drainFor(parent, drain, cfg.DrainDelay, sig)
	case <-parent.Done():
	}
	stopCtx, cancelStop := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancelStop()
	if err := app.Stop(stopCtx); err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	log.Info("teamtext stopped")
	return nil
}
