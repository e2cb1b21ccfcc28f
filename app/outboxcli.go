package app

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamtext/teamtext/platform/phone"
)

// outboxPage is how many outbox entries one request reads.
const outboxPage = 200

// outboxEntry is what the outbox command reads of an entry.
type outboxEntry struct {
	To        string    `json:"to"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at"`
}

// newOutboxCmd is `teamtext admin simulator outbox [--team T] [--to PHONE]`:
// the texts the simulated carrier was handed, oldest first, one per line
// (time, the number masked, the body). With the simulator it is how a
// newcomer reads a dashboard sign-in code: one command, never a log line.
func newOutboxCmd(client func() (*adminClient, error), stdout io.Writer) *cobra.Command {
	var team, to string
	var last int
	cmd := &cobra.Command{
		Use:   "outbox [--team TEAM_ID] [--to PHONE] [--last N]",
		Short: "Texts handed to the carrier simulator (e.g. a dashboard sign-in code: --to your phone --last 1)",
		Args:  cobra.NoArgs,
	}
	cmd.Flags().StringVar(&team, "team", "", "only this team's texts")
	cmd.Flags().StringVar(&to, "to", "", "only texts to this phone (any common US format)")
	cmd.Flags().IntVar(&last, "last", 0, "only the last N matching texts (0: all)")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &ExitError{Code: 2, Err: err} })
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		want := ""
		if to != "" {
			n, err := phone.Parse(to)
			if err != nil {
				return &ExitError{Code: 2, Err: fmt.Errorf("--to: not a phone number")}
			}
			want = string(n)
		}
		c, err := client()
		if err != nil {
			return err
		}
		es, err := readOutbox(cmd.Context(), c, team, want)
		if err != nil {
			return err
		}
		if last > 0 && len(es) > last {
			es = es[len(es)-last:]
		}
		for _, e := range es {
			fmt.Fprintf(stdout, "%s  %s  %s\n", e.CreatedAt.Local().Format(time.DateTime), phone.Mask(e.To), e.Body)
		}
		return nil
	}
	return cmd
}

// readOutbox pages through the simulator's outbox, keeping the texts to
// want ("" keeps all).
func readOutbox(ctx context.Context, c *adminClient, team, want string) ([]outboxEntry, error) {
	var out []outboxEntry
	for offset := 0; ; offset += outboxPage {
		q := url.Values{"limit": {strconv.Itoa(outboxPage)}, "offset": {strconv.Itoa(offset)}}
		if team != "" {
			q.Set("team_id", team)
		}
		var page []outboxEntry
		if _, err := c.json(ctx, http.MethodGet, "/simulator/outbox?"+q.Encode(), nil, &page); err != nil {
			return nil, err
		}
		for _, e := range page {
			if want == "" || e.To == want {
				out = append(out, e)
			}
		}
		if len(page) < outboxPage {
			return out, nil
		}
	}
}
