package httpapi

import (
	"context"
	"encoding/json"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// Keyword is one of a team's keywords.
type Keyword struct {
	ID        string    `json:"id" doc:"kwd_ followed by the keyword's id."`
	Keyword   string    `json:"keyword" doc:"Upper case, one word of 1 to 20 letters A to Z and digits. A text whose whole body is the keyword (any case, white space and punctuation around it ignored) is answered with reply."`
	Reply     string    `json:"reply" doc:"The answer, texted one to one from the number that was texted as \"<team name>: \" followed by reply; not charged as credits, like a HELP answer, and never to an opted-out number."`
	GroupID   *string   `json:"group_id" doc:"The group a sender on the roster joins (every roster entry of the team with their number); null when none."`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func keywordFrom(k *domain.TeamKeyword) Keyword {
	out := Keyword{ID: k.ID, Keyword: k.Keyword, Reply: k.Reply, CreatedAt: k.CreatedAt, UpdatedAt: k.UpdatedAt}
	if k.GroupID != "" {
		g := k.GroupID
		out.GroupID = &g
	}
	return out
}

// nullableString is a change's optional, nullable string: left out (Set
// false: unchanged) is told apart from null (Set, Value "": cleared).
type nullableString struct {
	Set   bool
	Value string
}

// UnmarshalJSON implements json.Unmarshaler: called for the key when it is
// in the body, null included.
func (c *nullableString) UnmarshalJSON(b []byte) error {
	c.Set, c.Value = true, ""
	if string(b) == "null" {
		return nil
	}
	return json.Unmarshal(b, &c.Value)
}

// Schema implements huma.SchemaProvider: a string or null.
func (nullableString) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: huma.TypeString, Nullable: true}
}

func (c nullableString) change() *string {
	if !c.Set {
		return nil
	}
	v := c.Value
	return &v
}

type keywordPath struct {
	TeamID    string `path:"team_id"`
	KeywordID string `path:"keyword_id"`
}

// adminListKeywords serves admin-list-keywords.
func (h *handler) adminListKeywords(ctx context.Context, in *struct {
	TeamID string `path:"team_id"`
	httpapi.PageParams
}) (*httpapi.ListOutput[Keyword], error) {
	return httpapi.ListOf(in.PageParams, keywordFrom)(h.keywords.Keywords(ctx, in.TeamID, in.Limit, in.Offset))
}

// adminCreateKeyword serves admin-create-keyword.
func (h *handler) adminCreateKeyword(ctx context.Context, in *struct {
	TeamID string `path:"team_id"`
	Body   struct {
		Keyword string  `json:"keyword" doc:"One word of 1 to 20 letters and digits, stored upper case. Reserved (400 invalid_request): STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, REVOKE, OPTOUT, START, UNSTOP, HELP, INFO, JOIN, ATHLETE, PARENT and the team's code."`
		Reply   string  `json:"reply" doc:"1 to 459 characters."`
		GroupID *string `json:"group_id,omitempty" required:"false" nullable:"true" doc:"A group of the team (400 invalid_group otherwise); omitted or null: none."`
	}
}) (*httpapi.DataOutput[Keyword], error) {
	group := ""
	if in.Body.GroupID != nil {
		group = *in.Body.GroupID
	}
	return httpapi.DataOf(keywordFrom)(h.keywords.CreateKeyword(ctx, in.TeamID, inbound.KeywordInput{Keyword: in.Body.Keyword, Reply: in.Body.Reply, GroupID: group}))
}

// adminGetKeyword serves admin-get-keyword.
func (h *handler) adminGetKeyword(ctx context.Context, in *keywordPath) (*httpapi.DataOutput[Keyword], error) {
	return httpapi.DataOf(keywordFrom)(h.keywords.Keyword(ctx, in.TeamID, in.KeywordID))
}

// adminUpdateKeyword serves admin-update-keyword.
func (h *handler) adminUpdateKeyword(ctx context.Context, in *struct {
	TeamID    string `path:"team_id"`
	KeywordID string `path:"keyword_id"`
	Body      struct {
		Keyword *string        `json:"keyword,omitempty" required:"false" doc:"As on create."`
		Reply   *string        `json:"reply,omitempty" required:"false" doc:"As on create."`
		GroupID nullableString `json:"group_id,omitempty" required:"false" doc:"A group of the team; null removes the group; omitted: unchanged."`
	}
}) (*httpapi.DataOutput[Keyword], error) {
	p := inbound.KeywordPatch{Keyword: in.Body.Keyword, Reply: in.Body.Reply, GroupID: in.Body.GroupID.change()}
	return httpapi.DataOf(keywordFrom)(h.keywords.UpdateKeyword(ctx, in.TeamID, in.KeywordID, p))
}

// adminDeleteKeyword serves admin-delete-keyword.
func (h *handler) adminDeleteKeyword(ctx context.Context, in *keywordPath) (*struct{}, error) {
	return nil, h.keywords.DeleteKeyword(ctx, in.TeamID, in.KeywordID)
}
