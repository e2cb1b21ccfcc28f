package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// adminClient calls the admin API.
type adminClient struct {
	base  string
	token string
	http  *http.Client
}

func newAdminClient(base, token string) *adminClient {
	return &adminClient{base: strings.TrimRight(base, "/"), token: token, http: &http.Client{Timeout: 5 * time.Minute}}
}

// do sends a request to /admin/v1+path and returns the status and raw body.
func (c *adminClient) do(ctx context.Context, method, path, contentType string, body io.Reader) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+"/admin/v1"+path, body)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// json sends a JSON body (nil for none) and decodes data into out (if not nil).
func (c *adminClient) json(ctx context.Context, method, path string, in, out any) (int, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, err
		}
		body = bytes.NewReader(b)
	}
	status, b, err := c.do(ctx, method, path, "application/json", body)
	if err != nil {
		return status, err
	}
	if status >= 300 {
		return status, fmt.Errorf("%s %s: %d %s", method, path, status, strings.TrimSpace(string(b)))
	}
	if out != nil {
		var env struct {
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			return status, fmt.Errorf("%s %s: decode: %w", method, path, err)
		}
		return status, json.Unmarshal(env.Data, out)
	}
	return status, nil
}

type adminRoute struct {
	resource, verb, method, path, short string
}

// adminRoutes are the CLI's named operations; `teamtext admin request`
// reaches every other admin operation.
var adminRoutes = []adminRoute{
	{"teams", "create", "POST", "/teams", "Create a team (-f name= -f code= -f time_zone= -f plan= -F card_on_file=true ...)"},
	{"teams", "get", "GET", "/teams/{team}", "Show a team"},
	{"teams", "patch", "PATCH", "/teams/{team}", "Change a team (plan, card_on_file, payment_state, disabled, locked, ...)"},
	{"members", "create", "POST", "/teams/{team}/members", "Add a member, staff included"},
	{"members", "patch", "PATCH", "/teams/{team}/members/{member}", "Change role, dashboard_login, can_send_broadcasts, is_blocked"},
	{"members", "approve", "POST", "/teams/{team}/members/{member}/approve", "Approve a pending member"},
	{"keys", "create", "POST", "/teams/{team}/api-keys", "Create an API key (-f member_id= -f name=)"},
	{"keys", "list", "GET", "/teams/{team}/api-keys", "List API keys"},
	{"keys", "revoke", "DELETE", "/teams/{team}/api-keys/{key}", "Revoke an API key"},
	{"clock", "get", "GET", "/clock", "Read the service clock"},
	{"clock", "advance", "POST", "/clock/advance", "Advance the test clock (-F seconds=N)"},
}

func newAdminCmd(getenv func(string) string, stdout io.Writer) *cobra.Command {
	var url, token string
	admin := &cobra.Command{
		Use:   "admin",
		Short: "Call the admin API (ADMIN_URL, ADMIN_TOKEN) and print the JSON result",
		Long: "Call the admin API and print its JSON answer. Body fields: -f key=value (string), " +
			"-F key=value (JSON value: true, 42, [\"a\"]), or --data '{...}'. Exit status 1 on a non-2xx answer.",
	}
	admin.PersistentFlags().StringVar(&url, "url", firstNonEmpty(getenv("ADMIN_URL"), "http://127.0.0.1:8081"), "admin API base URL (ADMIN_URL)")
	admin.PersistentFlags().StringVar(&token, "token", getenv("ADMIN_TOKEN"), "admin token (ADMIN_TOKEN)")
	client := func() (*adminClient, error) {
		if token == "" {
			return nil, &ExitError{Code: 2, Err: fmt.Errorf("config: ADMIN_TOKEN is required for admin commands")}
		}
		return newAdminClient(url, token), nil
	}
	groups := map[string]*cobra.Command{}
	for _, r := range adminRoutes {
		g, ok := groups[r.resource]
		if !ok {
			g = &cobra.Command{Use: r.resource, Short: "Admin operations on " + r.resource}
			groups[r.resource] = g
			admin.AddCommand(g)
		}
		g.AddCommand(routeCmd(r, client, stdout))
	}
	req := &cobra.Command{
		Use:   "request METHOD PATH",
		Short: "Call any admin operation, e.g. request GET /teams/team_123/notifications",
		Args:  cobra.ExactArgs(2),
	}
	body := bodyFlags(req)
	req.RunE = func(cmd *cobra.Command, args []string) error {
		c, err := client()
		if err != nil {
			return err
		}
		return call(cmd.Context(), c, strings.ToUpper(args[0]), args[1], body, stdout)
	}
	admin.AddCommand(req, newImportCmd(client, stdout))
	return admin
}

type bodyOpts struct {
	fields, typed []string
	data          string
}

func bodyFlags(cmd *cobra.Command) *bodyOpts {
	b := &bodyOpts{}
	cmd.Flags().StringArrayVarP(&b.fields, "field", "f", nil, "body field as a string: key=value")
	cmd.Flags().StringArrayVarP(&b.typed, "raw-field", "F", nil, "body field as JSON: key=true, key=42")
	cmd.Flags().StringVar(&b.data, "data", "", "whole JSON body")
	return b
}

func (b *bodyOpts) build() (map[string]any, error) {
	if b.data == "" && len(b.fields) == 0 && len(b.typed) == 0 {
		return nil, nil
	}
	m := map[string]any{}
	if b.data != "" {
		if err := json.Unmarshal([]byte(b.data), &m); err != nil {
			return nil, fmt.Errorf("--data is not a JSON object: %w", err)
		}
	}
	for _, f := range b.fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("-f %q: want key=value", f)
		}
		m[k] = v
	}
	for _, f := range b.typed {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("-F %q: want key=value", f)
		}
		var val any
		if err := json.Unmarshal([]byte(v), &val); err != nil {
			return nil, fmt.Errorf("-F %s: %q is not a JSON value", k, v)
		}
		m[k] = val
	}
	return m, nil
}

func routeCmd(r adminRoute, client func() (*adminClient, error), stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{Use: r.verb, Short: r.short, Args: cobra.NoArgs}
	params := map[string]*string{}
	for _, p := range []string{"team", "member", "key"} {
		if strings.Contains(r.path, "{"+p+"}") {
			v := new(string)
			params[p] = v
			cmd.Flags().StringVar(v, p, "", p+" id (required)")
			_ = cmd.MarkFlagRequired(p)
		}
	}
	var body *bodyOpts
	if r.method != "GET" && r.method != "DELETE" {
		body = bodyFlags(cmd)
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		c, err := client()
		if err != nil {
			return err
		}
		path := r.path
		for p, v := range params {
			path = strings.ReplaceAll(path, "{"+p+"}", *v)
		}
		return call(cmd.Context(), c, r.method, path, body, stdout)
	}
	return cmd
}

func call(ctx context.Context, c *adminClient, method, path string, b *bodyOpts, stdout io.Writer) error {
	var rd io.Reader
	if b != nil {
		m, err := b.build()
		if err != nil {
			return &ExitError{Code: 2, Err: err}
		}
		if m != nil {
			raw, _ := json.Marshal(m)
			rd = bytes.NewReader(raw)
		}
	}
	status, out, err := c.do(ctx, method, path, "application/json", rd)
	if err != nil {
		return err
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, out, "", "  ") == nil {
		out = pretty.Bytes()
	}
	fmt.Fprintln(stdout, string(out))
	if status >= 300 {
		return &ExitError{Code: 1, Err: fmt.Errorf("%s %s: HTTP %d", method, path, status)}
	}
	return nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// newImportCmd is a placeholder until the roster import lands; it keeps the
// command tree stable.
func newImportCmd(client func() (*adminClient, error), stdout io.Writer) *cobra.Command {
	return &cobra.Command{Use: "import", Hidden: true, RunE: func(*cobra.Command, []string) error {
		return fmt.Errorf("members import is not available yet")
	}}
}
