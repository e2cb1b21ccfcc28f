package harness

import (
	"context"
	"fmt"
	"net/http"
	"strings"
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

// National writes an E.164 US number as people type it, (AAA) EEE-LLLL;
// anything else it returns as it is.
func National(e164 string) string {
	d := strings.TrimPrefix(e164, "+1")
	if len(d) != 10 {
		return e164
	}
	return "(" + d[:3] + ") " + d[3:6] + "-" + d[6:]
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

// Member is one row of an admin CSV import.
type Member struct{ Name, Phone, Role, Group string }

// Athletes is members from to to (excluded) of number block b (Phone),
// each named "Athlete <i>", with the athlete role and no group.
func Athletes(block, from, to int) []Member {
	rows := make([]Member, 0, max(0, to-from))
	for i := from; i < to; i++ {
		rows = append(rows, Member{Name: fmt.Sprintf("Athlete %d", i), Phone: Phone(block, i), Role: "athlete"})
	}
	return rows
}

// ImportMembers imports rows through the admin CSV import of team teamID
// (columns name, phone, role and groups) and returns its answer, which
// must be 200.
func ImportMembers(ctx context.Context, admin *Client, teamID string, rows []Member) (res ImportResult, err error) {
	var b strings.Builder
	b.WriteString("name,phone,role,groups\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%s,%s,%s,%s\n", r.Name, r.Phone, r.Role, r.Group)
	}
	resp, err := ImportCSV(ctx, admin, teamID, b.String())
	if err == nil && resp.Status != http.StatusOK {
		err = fmt.Errorf("import: status %d: %.300s", resp.Status, resp.Body)
	}
	if err == nil {
		err = resp.Data(&res)
	}
	return res, err
}
