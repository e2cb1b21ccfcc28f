package app

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// seedDemo creates, through the admin API, a demo team on Team Plus with a
// card on file and quiet hours on (what the README recommends for clubs),
// its head coach (a dashboard login), three families and an API key, and
// prints the key once. If
// the demo team exists already it does nothing.
func seedDemo(ctx context.Context, adminURL, token string, out io.Writer) error {
	c := newAdminClient(adminURL, token)
	var team struct {
		ID string `json:"id"`
	}
	status, err := c.json(ctx, http.MethodPost, "/teams", map[string]any{
		"name": "Demo FC", "code": "demo", "number": "+12025550100", "time_zone": "America/New_York",
		"plan": "team_plus", "card_on_file": true,
	}, &team)
	if status == http.StatusConflict {
		return nil // seeded on an earlier start
	}
	if err != nil {
		return err
	}
	if _, err := c.json(ctx, http.MethodPatch, "/teams/"+team.ID+"/messaging-settings", map[string]any{
		"quiet_hours": map[string]any{"enabled": true},
	}, nil); err != nil {
		return err
	}
	var coach struct {
		ID string `json:"id"`
	}
	if _, err := c.json(ctx, http.MethodPost, "/teams/"+team.ID+"/members", map[string]any{
		"name": "Demo Coach", "phone": "+12025550101", "email": "coach@example.com", "role": "head_coach", "dashboard_login": true,
	}, &coach); err != nil {
		return err
	}
	// A few families, so that a first text from the dashboard has someone
	// to go to (the simulator's numbers: nothing leaves the machine).
	for _, m := range []struct{ name, phone string }{
		{"Ava Rivera", "+12025550111"}, {"Ben Okafor", "+12025550112"}, {"Chloé Martin", "+12025550113"},
	} {
		if _, err := c.json(ctx, http.MethodPost, "/teams/"+team.ID+"/members", map[string]any{
			"name": m.name, "phone": m.phone, "role": "guardian",
		}, nil); err != nil {
			return err
		}
	}
	var key struct {
		Key string `json:"key"`
	}
	if _, err := c.json(ctx, http.MethodPost, "/teams/"+team.ID+"/api-keys", map[string]any{
		"member_id": coach.ID, "name": "demo",
	}, &key); err != nil {
		return err
	}
	// The admin token is a secret the operator already has: it is never
	// printed (stdout is also the service's log stream).
	fmt.Fprintf(out, "\n  Demo team %s seeded.\n  API key (shown once):   %s\n  Admin token:            the ADMIN_TOKEN serve was started with (make run keeps it in .run/admin-token)\n  Try: curl -H 'Authorization: Bearer %s' http://localhost:8080/api/v1/team\n  Dashboard:              http://localhost:8080/app/ (sign in as the demo coach, (202) 555-0101; README, Quick start)\n\n",
		team.ID, key.Key, key.Key)
	return nil
}
