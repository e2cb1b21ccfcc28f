package harness

import (
	"context"
	"fmt"
	"net/http"
)

// phoneAreas are the area codes of Phone's blocks.
var phoneAreas = []string{"202", "212", "310", "415", "617", "312", "206", "303"}

// Phone is number i of block b, +1 AAA EEE LLLL with the area code
// phoneAreas[b%8], the exchange 200 + i/10000 and the line i%10000: valid
// US numbers, distinct for blocks below 8 and i below 100,000, so that
// each of a test's rosters or number ranges takes a block of its own.
func Phone(block, i int) string {
	return fmt.Sprintf("+1%s%03d%04d", phoneAreas[block%len(phoneAreas)], 200+i/10000, i%10000)
}

// ImportRow is one data row's outcome in an admin CSV import's answer.
type ImportRow struct {
	Line     int    `json:"line"`
	Status   string `json:"status"`
	MemberID string `json:"member_id"`
	Error    *struct {
		Code             string `json:"code"`
		Message          string `json:"message"`
		ExistingMemberID string `json:"existing_member_id"`
	} `json:"error"`
}

// ImportResult is the admin CSV import's answer (the admin API has no
// generated client).
type ImportResult struct {
	Created int         `json:"created"`
	Failed  int         `json:"failed"`
	Rows    []ImportRow `json:"rows"`
}

// ImportCSV posts csv to the admin CSV import of team teamID.
func ImportCSV(ctx context.Context, admin *Client, teamID, csv string) (*Response, error) {
	return admin.Do(ctx, http.MethodPost, "/teams/"+teamID+"/members/import", csv, "Content-Type", "text/csv")
}
