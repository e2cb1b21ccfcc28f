package postman_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/humatest"
	pmc "github.com/rbretecher/go-postman-collection"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/postman"
)

type teamInput struct {
	TeamID  string `path:"teamID" doc:"Team identifier"`
	Include string `query:"include" doc:"Comma-separated related resources to embed"`
}

type teamOutput struct {
	Body struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
}

type attachment struct {
	URL  string `json:"url" format:"uri"`
	Size int64  `json:"size"`
}

type messageBody struct {
	Text        string       `json:"text" minLength:"1" doc:"Message text"`
	Priority    string       `json:"priority" enum:"low,normal,high"`
	Labels      []string     `json:"labels"`
	Attachments []attachment `json:"attachments"`
	Meta        struct {
		Source string    `json:"source" example:"sms"`
		SentAt time.Time `json:"sent_at"`
		Urgent bool      `json:"urgent"`
	} `json:"meta"`
}

type sendMessageInput struct {
	TeamID string `path:"teamID" doc:"Team identifier"`
	Body   messageBody
}

type listMessagesInput struct {
	TeamID string `path:"teamID"`
	Limit  int    `query:"limit" required:"true" doc:"Page size"`
	Cursor string `query:"cursor" doc:"Opaque pagination cursor"`
}

type deleteMessageInput struct {
	TeamID    string `path:"teamID"`
	MessageID string `path:"messageID"`
}

type healthOutput struct {
	Body struct {
		Status string `json:"status"`
	}
}

func noop[I, O any](context.Context, *I) (*O, error) { return nil, nil }

// buildOpenAPI registers a small but realistic API with huma and returns its
// OpenAPI 3.1 JSON. prefix is prepended to every operation path.
func buildOpenAPI(t *testing.T, prefix string) []byte {
	t.Helper()
	_, api := humatest.New(t)
	oapi := api.OpenAPI()
	oapi.Info.Title = "TeamText API"
	oapi.Info.Description = "Team messaging service."
	oapi.Servers = []*huma.Server{{URL: "/api/v1"}}
	oapi.Tags = []*huma.Tag{
		{Name: "Teams", Description: "Team management"},
		{Name: "Messages"},
		{Name: "System"},
	}
	if oapi.Components.SecuritySchemes == nil {
		oapi.Components.SecuritySchemes = map[string]*huma.SecurityScheme{}
	}
	oapi.Components.SecuritySchemes["bearer"] = &huma.SecurityScheme{Type: "http", Scheme: "bearer", BearerFormat: "opaque"}
	oapi.Security = []map[string][]string{{"bearer": {}}}

	huma.Register(api, huma.Operation{
		OperationID: "get-team",
		Method:      http.MethodGet,
		Path:        prefix + "/team/{teamID}",
		Summary:     "Get team",
		Description: "Returns a team.",
		Tags:        []string{"Teams"},
	}, noop[teamInput, teamOutput])
	huma.Register(api, huma.Operation{
		OperationID:   "send-message",
		Method:        http.MethodPost,
		Path:          prefix + "/team/{teamID}/messages",
		Summary:       "Send message",
		Tags:          []string{"Messages"},
		DefaultStatus: http.StatusAccepted,
	}, noop[sendMessageInput, struct{}])
	huma.Register(api, huma.Operation{
		OperationID: "list-messages",
		Method:      http.MethodGet,
		Path:        prefix + "/team/{teamID}/messages",
		Summary:     "List messages",
		Tags:        []string{"Messages"},
	}, noop[listMessagesInput, struct{}])
	huma.Register(api, huma.Operation{
		OperationID: "delete-message",
		Method:      http.MethodDelete,
		Path:        prefix + "/team/{teamID}/messages/{messageID}",
	}, noop[deleteMessageInput, struct{}])
	huma.Register(api, huma.Operation{
		OperationID: "health",
		Method:      http.MethodGet,
		Path:        prefix + "/health",
		Summary:     "Health check",
		Tags:        []string{"System"},
		Security:    []map[string][]string{},
	}, noop[struct{}, healthOutput])

	b, err := json.Marshal(oapi)
	require.NoError(t, err)
	return b
}

func findRequest(t *testing.T, folder *pmc.Items, name string) *pmc.Items {
	t.Helper()
	for _, it := range folder.Items {
		if it.Name == name {
			return it
		}
	}
	require.Failf(t, "request not found", "%q in folder %q", name, folder.Name)
	return nil
}

func TestFromOpenAPI(t *testing.T) {
	t.Parallel()

	spec := buildOpenAPI(t, "")
	out, err := postman.FromOpenAPI(spec, postman.Options{BaseURL: "http://localhost:8080/api/v1"})
	require.NoError(t, err)

	// Third-party v2.1 parser.
	col, err := pmc.ParseCollection(bytes.NewReader(out))
	require.NoError(t, err)
	require.Equal(t, "TeamText API", col.Info.Name)
	require.Equal(t, "Team messaging service.", col.Info.Description.Content)
	require.Equal(t, postman.SchemaURL, col.Info.Schema)

	require.NotNil(t, col.Auth)
	require.EqualValues(t, "bearer", col.Auth.Type)
	require.Len(t, col.Auth.Bearer, 1)
	require.Equal(t, "token", col.Auth.Bearer[0].Key)
	require.Equal(t, "{{api_key}}", col.Auth.Bearer[0].Value)

	require.Len(t, col.Variables, 2)
	require.Equal(t, "base_url", col.Variables[0].Key)
	require.Equal(t, "http://localhost:8080/api/v1", col.Variables[0].Value)
	require.Equal(t, "api_key", col.Variables[1].Key)
	require.Empty(t, col.Variables[1].Value)
	require.Equal(t, "string", col.Variables[1].Type)

	names := make([]string, 0, len(col.Items))
	total := 0
	for _, f := range col.Items {
		require.True(t, f.IsGroup(), "top-level item %q must be a folder", f.Name)
		names = append(names, f.Name)
		total += len(f.Items)
	}
	require.Equal(t, []string{"Teams", "Messages", "System", "default"}, names)
	require.Equal(t, 5, total)

	teams, messages, system, def := col.Items[0], col.Items[1], col.Items[2], col.Items[3]
	require.Equal(t, "Team management", teams.Description)

	getTeam := findRequest(t, teams, "Get team")
	require.EqualValues(t, http.MethodGet, getTeam.Request.Method)
	require.Equal(t, "Returns a team.", getTeam.Request.Description)
	require.Equal(t, "{{base_url}}/team/:teamID", getTeam.Request.URL.Raw)
	require.Equal(t, []string{"{{base_url}}"}, getTeam.Request.URL.Host)
	require.Equal(t, []string{"team", ":teamID"}, getTeam.Request.URL.Path)
	require.Len(t, getTeam.Request.URL.Variables, 1)
	require.Equal(t, "teamID", getTeam.Request.URL.Variables[0].Key)
	require.Equal(t, "Team identifier", getTeam.Request.URL.Variables[0].Description)
	require.Len(t, getTeam.Request.URL.Query, 1)
	require.Equal(t, "include", getTeam.Request.URL.Query[0].Key)
	require.Nil(t, getTeam.Request.Auth, "authenticated ops inherit the collection auth")
	require.Nil(t, getTeam.Request.Body)

	// Same path sorted by method: GET before POST.
	require.Len(t, messages.Items, 2)
	require.Equal(t, "List messages", messages.Items[0].Name)
	require.EqualValues(t, http.MethodGet, messages.Items[0].Request.Method)
	require.Equal(t, "Send message", messages.Items[1].Name)
	require.EqualValues(t, http.MethodPost, messages.Items[1].Request.Method)
	require.Equal(t, "{{base_url}}/team/:teamID/messages", messages.Items[1].Request.URL.Raw)

	send := messages.Items[1].Request
	require.NotNil(t, send.Body)
	require.Equal(t, "raw", send.Body.Mode)
	require.NotNil(t, send.Body.Options)
	require.Equal(t, "json", send.Body.Options.Raw.Language)
	require.Contains(t, send.Header, &pmc.Header{Key: "Content-Type", Value: "application/json"})
	var example map[string]any
	require.NoError(t, json.Unmarshal([]byte(send.Body.Raw), &example))
	require.Equal(t, "", example["text"])
	require.Equal(t, "low", example["priority"])
	require.Equal(t, []any{""}, example["labels"])
	require.Equal(t, []any{map[string]any{"url": "https://example.com", "size": float64(0)}}, example["attachments"])
	require.Equal(t, map[string]any{"source": "sms", "sent_at": "2024-01-01T00:00:00Z", "urgent": false}, example["meta"])

	health := findRequest(t, system, "Health check")
	require.NotNil(t, health.Request.Auth)
	require.EqualValues(t, "noauth", health.Request.Auth.Type)
	require.Equal(t, "{{base_url}}/health", health.Request.URL.Raw)

	del := findRequest(t, def, "delete-message")
	require.EqualValues(t, http.MethodDelete, del.Request.Method)
	require.Equal(t, "{{base_url}}/team/:teamID/messages/:messageID", del.Request.URL.Raw)
	require.Len(t, del.Request.URL.Variables, 2)

	// Plain JSON view: schema URL, query param flags and the collection shape.
	var raw map[string]any
	require.NoError(t, json.Unmarshal(out, &raw))
	rawInfo := raw["info"].(map[string]any)
	require.Equal(t, "https://schema.getpostman.com/json/collection/v2.1.0/collection.json", rawInfo["schema"])
	require.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, rawInfo["_postman_id"])

	list := raw["item"].([]any)[1].(map[string]any)["item"].([]any)[0].(map[string]any)
	query := list["request"].(map[string]any)["url"].(map[string]any)["query"].([]any)
	require.Len(t, query, 2)
	byKey := map[string]map[string]any{}
	for _, q := range query {
		qm := q.(map[string]any)
		byKey[qm["key"].(string)] = qm
	}
	require.NotContains(t, byKey["limit"], "disabled", "required query params are enabled")
	require.Equal(t, "Page size", byKey["limit"]["description"])
	require.Equal(t, true, byKey["cursor"]["disabled"])
	require.Equal(t, "", byKey["cursor"]["value"])

	// Determinism.
	again, err := postman.FromOpenAPI(spec, postman.Options{BaseURL: "http://localhost:8080/api/v1"})
	require.NoError(t, err)
	require.Equal(t, out, again)

	// A second, independently built document yields the same bytes too.
	other, err := postman.FromOpenAPI(buildOpenAPI(t, ""), postman.Options{BaseURL: "http://localhost:8080/api/v1"})
	require.NoError(t, err)
	require.Equal(t, string(out), string(other))
}

func TestFromOpenAPIStripsServerPrefix(t *testing.T) {
	t.Parallel()

	relative, err := postman.FromOpenAPI(buildOpenAPI(t, ""), postman.Options{Name: "Local", BaseURL: "http://x/api/v1"})
	require.NoError(t, err)
	prefixed, err := postman.FromOpenAPI(buildOpenAPI(t, "/api/v1"), postman.Options{Name: "Local", BaseURL: "http://x/api/v1"})
	require.NoError(t, err)
	require.JSONEq(t, string(relative), string(prefixed))

	col, err := pmc.ParseCollection(bytes.NewReader(prefixed))
	require.NoError(t, err)
	require.Equal(t, "Local", col.Info.Name)
	require.Equal(t, "{{base_url}}/team/:teamID", col.Items[0].Items[0].Request.URL.Raw)
}

func TestFromOpenAPIWithoutServersKeepsPaths(t *testing.T) {
	t.Parallel()

	doc := `{
	  "openapi": "3.1.0",
	  "info": {"title": "Bare"},
	  "paths": {
	    "/api/v1/nodes/{id}": {
	      "parameters": [{"$ref": "#/components/parameters/ID"}],
	      "put": {
	        "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}}
	      },
	      "post": {
	        "operationId": "copy-node",
	        "security": [],
	        "requestBody": {"content": {"application/json": {
	          "schema": {"$ref": "#/components/schemas/Node"},
	          "example": {"id": "abc", "note": "<b>&</b>"}
	        }}}
	      }
	    }
	  },
	  "components": {
	    "parameters": {"ID": {"name": "id", "in": "path", "required": true, "description": "Node id"}},
	    "schemas": {
	      "Node": {
	        "type": "object",
	        "properties": {
	          "id": {"type": ["string", "null"], "format": "uuid"},
	          "$schema": {"type": "string", "format": "uri", "readOnly": true},
	          "child": {"$ref": "#/components/schemas/Node"},
	          "loop": {"$ref": "#/components/schemas/Loop"}
	        }
	      },
	      "Loop": {"$ref": "#/components/schemas/Loop"}
	    }
	  }
	}`
	out, err := postman.FromOpenAPI([]byte(doc), postman.Options{})
	require.NoError(t, err)

	col, err := pmc.ParseCollection(bytes.NewReader(out))
	require.NoError(t, err)
	require.Len(t, col.Items, 1)
	require.Equal(t, "default", col.Items[0].Name)
	require.Len(t, col.Items[0].Items, 2)
	req := col.Items[0].Items[1]
	require.Equal(t, "PUT /api/v1/nodes/{id}", req.Name)
	require.Equal(t, "{{base_url}}/api/v1/nodes/:id", req.Request.URL.Raw)
	require.Len(t, req.Request.URL.Variables, 1)
	require.Equal(t, "Node id", req.Request.URL.Variables[0].Description)

	// The recursive schema is cut off at the depth limit (6 nested objects,
	// the innermost "child" left empty).
	var example map[string]any
	require.NoError(t, json.Unmarshal([]byte(req.Request.Body.Raw), &example))
	levels := 0
	for cur := example; len(cur) > 0; cur, _ = cur["child"].(map[string]any) {
		require.Equal(t, "00000000-0000-0000-0000-000000000000", cur["id"])
		require.NotContains(t, cur, "loop", "unresolvable (cyclic) refs are skipped")
		require.NotContains(t, cur, "$schema", "read-only properties are not part of request examples")
		levels++
	}
	require.Equal(t, 6, levels)

	// A media-type example wins over the schema and is kept verbatim.
	post := col.Items[0].Items[0]
	require.Equal(t, "copy-node", post.Name)
	require.EqualValues(t, http.MethodPost, post.Request.Method)
	require.EqualValues(t, "noauth", post.Request.Auth.Type)
	require.JSONEq(t, `{"id": "abc", "note": "<b>&</b>"}`, post.Request.Body.Raw)
	require.Contains(t, post.Request.Body.Raw, "<b>&</b>", "no HTML escaping in examples")
}

func TestFromOpenAPIInvalidInput(t *testing.T) {
	t.Parallel()

	for name, input := range map[string]string{
		"empty":          ``,
		"not json":       `openapi: 3.1.0`,
		"truncated":      `{"openapi": "3.1.0", "paths": {`,
		"not an object":  `[1, 2, 3]`,
		"no paths":       `{"openapi": "3.1.0", "info": {"title": "x"}}`,
		"paths not obj":  `{"openapi": "3.1.0", "paths": []}`,
		"swagger 2":      `{"swagger": "2.0", "paths": {}}`,
		"trailing bytes": `{"openapi": "3.1.0", "paths": {}} {}`,
	} {
		_, err := postman.FromOpenAPI([]byte(input), postman.Options{})
		require.Error(t, err, name)
	}
}
