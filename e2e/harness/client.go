package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Response is a decoded HTTP answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v.
func (r *Response) JSON(v any) error { return json.Unmarshal(r.Body, v) }

// Data decodes the body's data member into v.
func (r *Response) Data(v any) error {
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(r.Body, &env); err != nil {
		return fmt.Errorf("decode %s: %w", r.Body, err)
	}
	return json.Unmarshal(env.Data, v)
}

// ErrorCode returns error.code of an error envelope ("" if none).
func (r *Response) ErrorCode() string {
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &env)
	return env.Error.Code
}

// Client sends requests with a bearer token.
type Client struct {
	Base  string
	Token string
	HTTP  *http.Client
}

// NewClient returns a client for base (e.g. svc.PublicURL+"/api/v1").
func NewClient(base, token string) *Client {
	return &Client{Base: base, Token: token, HTTP: HTTPClient()}
}

// Do sends a request. A non-nil body that is not []byte or string is sent as JSON.
func (c *Client) Do(ctx context.Context, method, path string, body any, headers ...string) (*Response, error) {
	var rd io.Reader
	contentType := ""
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(raw)
		contentType = "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, rd)
	if err != nil {
		return nil, err
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// Fixture is a team made for one test: its id, a head coach and their key.
type Fixture struct {
	TeamID  string
	CoachID string
	Key     string
	KeyID   string
}

// TeamOptions tunes NewTeam.
type TeamOptions struct {
	Plan       string // default team_plus
	CardOnFile *bool  // default true
	Extra      map[string]any
}

// NewTeam creates a fresh team (unique code), its head coach and an API key
// through the admin API. Tests isolate by team, never by truncating.
func NewTeam(ctx context.Context, admin *Client, o TeamOptions) (*Fixture, error) {
	plan := o.Plan
	if plan == "" {
		plan = "team_plus"
	}
	card := true
	if o.CardOnFile != nil {
		card = *o.CardOnFile
	}
	code := fmt.Sprintf("t%d", time.Now().UnixNano())
	body := map[string]any{"name": "Team " + code, "code": code, "time_zone": "America/New_York", "plan": plan, "card_on_file": card}
	for k, v := range o.Extra {
		body[k] = v
	}
	var team struct {
		ID string `json:"id"`
	}
	if err := admin.Expect(ctx, http.StatusCreated, http.MethodPost, "/teams", body, &team); err != nil {
		return nil, err
	}
	var coach struct {
		ID string `json:"id"`
	}
	if err := admin.Expect(ctx, http.StatusCreated, http.MethodPost, "/teams/"+team.ID+"/members",
		map[string]any{"name": "Head Coach", "phone": "+12025550199", "role": "head_coach", "dashboard_login": true}, &coach); err != nil {
		return nil, err
	}
	key, err := NewKey(ctx, admin, team.ID, coach.ID, "e2e")
	if err != nil {
		return nil, err
	}
	return &Fixture{TeamID: team.ID, CoachID: coach.ID, Key: key.Key, KeyID: key.ID}, nil
}

// APIKey is the admin API's answer to a new key: its id and its secret.
type APIKey struct {
	ID  string `json:"id"`
	Key string `json:"key"`
}

// NewKey creates an API key of team teamID for member memberID (a head
// coach) through the admin API.
func NewKey(ctx context.Context, admin *Client, teamID, memberID, name string) (APIKey, error) {
	var key APIKey
	err := admin.Expect(ctx, http.StatusCreated, http.MethodPost, "/teams/"+teamID+"/api-keys",
		map[string]any{"member_id": memberID, "name": name}, &key)
	return key, err
}

// NewKeys creates n API keys of team teamID for member memberID (a head
// coach), named name-0, name-1, …, and returns their secrets: requests
// spread over them stay under the per-key limits.
func NewKeys(ctx context.Context, admin *Client, teamID, memberID, name string, n int) ([]string, error) {
	keys := make([]string, n)
	for i := range keys {
		k, err := NewKey(ctx, admin, teamID, memberID, fmt.Sprintf("%s-%d", name, i))
		if err != nil {
			return nil, fmt.Errorf("create API key %d of %d: %w", i+1, n, err)
		}
		keys[i] = k.Key
	}
	return keys, nil
}

// Expect sends a JSON request and fails unless the status is want; it decodes data into out.
func (c *Client) Expect(ctx context.Context, want int, method, path string, body, out any) error {
	resp, err := c.Do(ctx, method, path, body)
	if err != nil {
		return err
	}
	if resp.Status != want {
		return fmt.Errorf("%s %s: got %d, want %d: %s", method, path, resp.Status, want, resp.Body)
	}
	if out != nil {
		return resp.Data(out)
	}
	return nil
}
