package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
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
	{"members", "clear-undeliverable", "DELETE", "/teams/{team}/members/{member}/undeliverable", "Clear the undeliverable mark of the member's number (every entry with it)"},
	{"keys", "create", "POST", "/teams/{team}/api-keys", "Create an API key (-f member_id= -f name=)"},
	{"keys", "list", "GET", "/teams/{team}/api-keys", "List API keys"},
	{"keys", "revoke", "DELETE", "/teams/{team}/api-keys/{key}", "Revoke an API key"},
	{"numbers", "add", "POST", "/teams/{team}/numbers", "Add a sending number (-f number= [-f kind=toll_free] [-F throughput=3])"},
	{"numbers", "list", "GET", "/teams/{team}/numbers", "List a team's sending numbers, its primary first"},
	{"numbers", "get", "GET", "/teams/{team}/numbers/{number}", "Show a sending number with its backlog"},
	{"numbers", "update", "PATCH", "/teams/{team}/numbers/{number}", "Change a sending number's kind, throughput or number"},
	{"numbers", "remove", "DELETE", "/teams/{team}/numbers/{number}", "Remove a sending number (not the primary, not with texts planned)"},
	{"carrier-accounts", "create", "POST", "/carrier-accounts", "Add a carrier account (--data '{\"provider\":\"telnyx\",\"name\":...,\"credentials\":{...}}'; credentials are never printed back)"},
	{"carrier-accounts", "list", "GET", "/carrier-accounts", "List carrier accounts, the default (the environment's) first"},
	{"carrier-accounts", "get", "GET", "/carrier-accounts/{account}", "Show a carrier account (never its credentials)"},
	{"carrier-accounts", "update", "PATCH", "/carrier-accounts/{account}", "Change a carrier account's name, api_url or credentials"},
	{"carrier-accounts", "delete", "DELETE", "/carrier-accounts/{account}", "Delete a carrier account no number uses"},
	{"simulator", "profile", "PUT", "/simulator/profile", "Set the carrier simulator's profile (-f name=realistic [-F duplicate_rate=0.1] ...)"},
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
	// A secret is never a flag's default: help would print it. The flag
	// stays empty and the environment is read when a command runs.
	admin.PersistentFlags().StringVar(&token, "token", "", "admin token (from ADMIN_TOKEN)")
	client := func() (*adminClient, error) {
		if token == "" {
			token = getenv("ADMIN_TOKEN")
		}
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
	groups["members"].AddCommand(newImportCmd(client, stdout))
	groups["simulator"].AddCommand(newOutboxCmd(client, stdout))
	admin.AddCommand(req)
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
	for _, p := range []string{"team", "member", "key", "number"} {
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

// newImportCmd is `teamtext admin members import FILE --team TEAM_ID`. It
// uploads a roster CSV with a progress bar, shows a spinner while the
// server writes the rows, then prints the JSON answer to stdout, and the
// failed rows ("line N: code: message") and a one-line summary to stderr.
// Exit status: 0 every row created, 1 a row failed or the request was
// refused, 2 usage or configuration errors. When stderr is not a terminal
// (CI), progress is a few plain lines instead of a redrawn bar.
func newImportCmd(client func() (*adminClient, error), stdout io.Writer) *cobra.Command {
	var team string
	cmd := &cobra.Command{
		Use:   "import FILE --team TEAM_ID",
		Short: "Import members from a CSV file, with per-row results",
		Long: "Import members from a CSV file (UTF-8, header row required; columns name, phone, email, role, status, " +
			"groups as names or ids separated by \";\", and the team's custom field keys). Each row is imported on its " +
			"own: a failed row never undoes another. The JSON answer goes to stdout; failed rows and a summary to stderr. " +
			"Exit status 1 if any row failed.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &ExitError{Code: 2, Err: fmt.Errorf("usage: teamtext admin members import FILE --team TEAM_ID")}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&team, "team", "", "team id (required)")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &ExitError{Code: 2, Err: err} })
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if team == "" {
			return &ExitError{Code: 2, Err: fmt.Errorf("usage: --team TEAM_ID is required")}
		}
		c, err := client()
		if err != nil {
			return err
		}
		f, err := os.Open(args[0])
		if err != nil {
			return &ExitError{Code: 2, Err: fmt.Errorf("import: %w", err)}
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return &ExitError{Code: 2, Err: fmt.Errorf("import: %w", err)}
		}
		if !info.Mode().IsRegular() {
			return &ExitError{Code: 2, Err: fmt.Errorf("import: %s is not a regular file", args[0])}
		}
		ui := newImportUI(cmd.ErrOrStderr(), info.Size())
		started := time.Now()
		status, body, err := ui.upload(cmd.Context(), c, "/teams/"+url.PathEscape(team)+"/members/import", f, info.Size())
		ui.done()
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		return reportImport(stdout, cmd.ErrOrStderr(), status, body, time.Since(started))
	}
	return cmd
}

// importUI shows the upload's progress, then a spinner until the answer.
type importUI struct {
	w        io.Writer
	tty      bool
	bar      *progressbar.ProgressBar
	mu       sync.Mutex
	spinner  *progressbar.ProgressBar
	waiting  bool
	size     int64
	sent     int64 // plain mode: bytes read so far
	nextStep int64 // plain mode: the next percentage to report
}

func newImportUI(w io.Writer, size int64) *importUI {
	f, ok := w.(*os.File)
	u := &importUI{w: w, tty: ok && term.IsTerminal(int(f.Fd())), size: size, nextStep: 25}
	u.bar = progressbar.NewOptions64(size,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("uploading"),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowTotalBytes(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionSetVisibility(u.tty),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
	)
	if !u.tty {
		fmt.Fprintf(w, "uploading %d bytes\n", size)
	}
	return u
}

// upload POSTs the file as text/csv, counting bytes as the transport reads
// them, and returns the answer's status and body.
func (u *importUI) upload(ctx context.Context, c *adminClient, path string, f io.Reader, size int64) (int, []byte, error) {
	body := &importReader{r: io.LimitReader(f, size), ui: u}
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { u.uploaded() }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodPost, c.base+"/admin/v1"+path, body)
	if err != nil {
		return 0, nil, err
	}
	req.ContentLength = size
	if size == 0 {
		req.Body = http.NoBody
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "text/csv")
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("POST %s: read answer: %w", path, err)
	}
	return resp.StatusCode, b, nil
}

// importReader feeds the bar (and, in plain mode, prints every 25%).
type importReader struct {
	r  io.Reader
	ui *importUI
}

func (r *importReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.ui.progress(n)
	return n, err
}

func (u *importUI) progress(n int) {
	if n == 0 {
		return
	}
	if u.tty {
		_ = u.bar.Add(n)
		return
	}
	// The bar draws nothing when invisible (and counts nothing), so plain
	// mode counts for itself.
	u.mu.Lock()
	defer u.mu.Unlock()
	u.sent += int64(n)
	if pct := u.sent * 100 / max(u.size, 1); pct >= u.nextStep {
		fmt.Fprintf(u.w, "uploaded %d%% (%d of %d bytes)\n", pct, u.sent, u.size)
		u.nextStep = (pct/25 + 1) * 25
	}
}

// uploaded is called once the request is written: the server now imports.
func (u *importUI) uploaded() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.waiting {
		return
	}
	u.waiting = true
	if !u.tty {
		fmt.Fprintln(u.w, "upload complete; the server is importing the rows…")
		return
	}
	_ = u.bar.Finish()
	u.spinner = progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(u.w),
		progressbar.OptionSetDescription("importing rows"),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionClearOnFinish(),
	)
	_ = u.spinner.RenderBlank()
}

// done stops the spinner, if it runs.
func (u *importUI) done() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.spinner != nil {
		_ = u.spinner.Finish()
		u.spinner = nil
	}
}

// reportImport prints the answer to stdout, failed rows and the summary to
// stderr, and turns failures into exit status 1.
func reportImport(stdout, stderr io.Writer, status int, body []byte, took time.Duration) error {
	out := body
	var pretty bytes.Buffer
	if json.Indent(&pretty, body, "", "  ") == nil {
		out = pretty.Bytes()
	}
	fmt.Fprintln(stdout, string(out))
	if status >= 300 {
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		_ = json.Unmarshal(body, &e)
		return &ExitError{Code: 1, Err: fmt.Errorf("import refused: HTTP %d %s: %s", status, e.Error.Code, e.Error.Message)}
	}
	var ans struct {
		Data struct {
			Created int `json:"created"`
			Failed  int `json:"failed"`
			Rows    []struct {
				Line   int    `json:"line"`
				Status string `json:"status"`
				Error  *struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			} `json:"rows"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return fmt.Errorf("import: decode answer: %w", err)
	}
	for _, r := range ans.Data.Rows {
		if r.Error != nil {
			fmt.Fprintf(stderr, "line %d: %s: %s\n", r.Line, r.Error.Code, r.Error.Message)
		}
	}
	d := ans.Data
	fmt.Fprintf(stderr, "imported %d rows in %s: %d created, %d failed\n", d.Created+d.Failed, took.Round(10*time.Millisecond), d.Created, d.Failed)
	if d.Failed > 0 {
		return &ExitError{Code: 1, Err: fmt.Errorf("%d of %d rows failed", d.Failed, d.Created+d.Failed)}
	}
	return nil
}
