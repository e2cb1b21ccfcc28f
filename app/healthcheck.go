package app

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// newHealthcheckCmd is `teamtext healthcheck`: a container's HEALTHCHECK in
// an image that has no shell and no curl. It asks the local public listener
// (ADDR) for /healthz and exits 0 on 200, 1 otherwise.
func newHealthcheckCmd(getenv func(string) string, stdout io.Writer) *cobra.Command {
	var target, path string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "healthcheck",
		Short: "Exit 0 when the local service answers /healthz (for container health checks)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if target == "" {
				u, err := localURL(getenv("ADDR"))
				if err != nil {
					return &ExitError{Code: 2, Err: err}
				}
				target = u + path
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
			if err != nil {
				return &ExitError{Code: 2, Err: fmt.Errorf("healthcheck url: %w", err)}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return &ExitError{Code: 1, Err: fmt.Errorf("healthcheck: %w", err)}
			}
			defer resp.Body.Close()
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			if resp.StatusCode != http.StatusOK {
				return &ExitError{Code: 1, Err: fmt.Errorf("healthcheck: %s answered %d", target, resp.StatusCode)}
			}
			fmt.Fprintln(stdout, "ok")
			return nil
		},
	}
	cmd.Flags().StringVar(&target, "url", "", "URL to ask instead of http://<ADDR>/healthz")
	cmd.Flags().StringVar(&path, "path", "/healthz", "path asked on ADDR (/readyz checks the database too)")
	cmd.Flags().DurationVar(&timeout, "timeout", 3*time.Second, "how long to wait for the answer")
	return cmd
}

// localURL turns a listen address (":8080", "0.0.0.0:8080", "[::]:8080")
// into a URL on loopback.
func localURL(addr string) (string, error) {
	if addr == "" {
		addr = ":8080"
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("config: ADDR must be host:port, got %q", addr)
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::", "[::]":
		host = "::1"
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return "http://" + host + ":" + port, nil
}
