package client_test

import (
	"context"
	"fmt"

	"github.com/teamtext/teamtext/client"
)

// The README's five lines: compiled with the tests, so they stay true.
func Example() {
	ctx, key, text := context.Background(), "tt_live_…", "Practice moved to 6pm."
	c, err := client.NewClientWithResponses("https://texts.example.org/api/v1", client.WithKey(key))
	m, err := c.CreateMemberWithResponse(ctx, client.CreateMemberRequest{Name: "Jordan Lee", Phone: "202-555-0101"})
	s, err := c.SendMessageWithResponse(ctx, nil, client.SendBody{Text: &text, Audience: client.SendBodyAudienceFamilies})
	fmt.Println(m.JSON201.Data.Id, s.JSON201.Data.Id, s.JSON409, err) // typed answers, errors included
}
