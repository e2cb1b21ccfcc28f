// CSV roster import: the dashboard adds up to ImportMaxRows members in one
// request.
//
// Atomicity is per row. The whole file is read and checked first (UTF-8,
// CSV syntax, header, row count), so a request refused with 400 writes
// nothing. Every data row then gets the outcome a single dashboard add
// (AddMember) would give it: validation, invalid_group, the opted_out,
// member_exists and staff_member_protected rules, and member.joined for an
// active member, together with the row's groups and custom-field values. A
// failing row never undoes another; its result names its CSV line. Rows are
// applied in file order, so the second of two identical rows is
// member_exists.
//
// The rows are written in chunks of importChunk, each one transaction of a
// fixed number of statements whatever its size: lock the chunk's phones,
// read their opt-outs and entries and the groups still there (three
// statements), decide every row in memory in file order, COPY the members,
// their groups and values, and publish the member.joined events in one
// batch. The cost is linear in rows. A chunk whose transaction fails (a
// group or custom field deleted meanwhile, say) is rolled back and its rows
// are written again one transaction each through AddMember, so one row's
// problem stays that row's.
//
// Chunks are pipelined, importInFlight at once, each on its own
// connection, so that Postgres works on one while the other waits for its
// round trips and the service plans (parses and checks) the next chunk's
// rows meanwhile. File order still holds: a chunk starts only once the one
// before has locked its phones, so a later row with an earlier row's number
// waits for that row's commit before reading the roster; member ids and
// created_at are taken in file order; and a chunk commits only after the one
// before committed. When one does not, every later chunk in flight rolls
// back and is written again after the failed chunk's rows.
//
// A time budget bounds the work so that the caller always gets its answer
// (the admin server's write timeout is 60 s): rows not started when it runs
// out fail with import_timeout and can be imported again; rows already
// imported then answer member_exists.

package service

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
)

const (
	// ImportMaxRows is the most data rows one import may carry.
	ImportMaxRows = 100000
	// importChunk is how many rows one transaction writes.
	importChunk = 1000
	// importInFlight is how many chunks are written at once.
	importInFlight = 2
	// importMaxValue bounds a custom-field value, as PATCH .../custom-fields does.
	importMaxValue = 1000
)

// Outcomes of an import row.
const (
	ImportCreated = "created"
	ImportFailed  = "failed"
)

// CodeImportTimeout is a row's error when the import's time budget ran out
// before the row was started; nothing was written for it.
const CodeImportTimeout = "import_timeout"

// ImportRow is the outcome of one CSV data row.
type ImportRow struct {
	Line     int          // CSV line the row starts on; the header is line 1
	Status   string       // ImportCreated or ImportFailed
	MemberID string       // the new member, when created
	Err      *fault.Error // why the row failed, when failed
	Cells    []string     // the row's cells as written, when failed
}

// ImportResult is the outcome of an import: every data row in file order,
// with totals. Blank rows (every cell empty) are skipped and not listed.
type ImportResult struct {
	Created, Failed int
	Rows            []ImportRow
	Header          []string // the file's header row, as written
}

// importSheet is a parsed file: where each column is, and the data rows.
type importSheet struct {
	phones  map[string]string // each distinct valid phone cell, checked once: its E.164
	zones   map[string]string // each distinct valid time_zone cell, checked once: the zone
	columns int               // header width
	header  []string          // the header row as written
	builtin map[string]int    // name, phone, ... → cell index
	fields  []importField     // custom-field columns
	rows    []importRecord
}

type importField struct {
	index int
	field domain.CustomField
}

type importRecord struct {
	line  int
	cells []string
}

// importPlan is a row checked without I/O, ready to be written.
type importPlan struct {
	idx      int    // index in ImportResult.Rows
	memberID string // the member's id, should the row be created
	member   NewMember
	// The checked member as AddMember would store it.
	phone, name, email, status string
	timeZone                   string
	role                       rosterapi.Role
	groups                     []string
	values                     []importValue
	consent                    domain.Consent
}

type importValue struct {
	fieldID, value string
}

// ImportMembers imports a roster CSV (see the file comment for the rules).
// The header row is required; columns are matched case-insensitively, in
// any order: name and phone (required), email, role (default athlete; staff
// roles allowed), status (pending or active, default active), groups (names
// or ids separated by ";"), the consent record's columns, time_zone (the
// member's own IANA time zone; empty: unset), and any custom field key of
// the team. A
// file-level problem answers 400 invalid_request and writes nothing; row
// problems are reported per row. No row is started once budget (wall time
// from the call; 0 for none) has elapsed.
func (s *Service) ImportMembers(ctx context.Context, teamID string, data []byte, budget time.Duration) (*ImportResult, error) {
	return s.importMembers(ctx, teamID, data, importOptions{budget: budget})
}

// importOptions are how an import runs: its time budget (0: none), and
// what hears of its progress (the rows that have their outcome so far, in
// file order; nil: nothing).
type importOptions struct {
	budget   time.Duration
	progress func(done int)
}

func (s *Service) importMembers(ctx context.Context, teamID string, data []byte, o importOptions) (*ImportResult, error) {
	// Real elapsed time, not s.clock: the budget protects an HTTP deadline,
	// which the test clock's offset does not move.
	var stopAt time.Time
	if o.budget > 0 {
		stopAt = time.Now().Add(o.budget)
	}
	if _, err := s.st.Teams.Team(ctx, teamID); err != nil {
		return nil, mapNotFound(err, errTeamNotFound)
	}
	fields, err := s.st.Fields.CustomFields(ctx, teamID)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	sheet, err := parseImport(data, fields)
	if err != nil {
		return nil, err
	}
	groups, err := s.groupIndex(ctx, teamID)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}

	res := &ImportResult{Rows: make([]ImportRow, len(sheet.rows))}
	for i, rec := range sheet.rows {
		res.Rows[i] = ImportRow{Line: rec.line}
	}
	s.writeImport(ctx, teamID, sheet, groups, res.Rows, stopAt, o.progress)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	res.Header = sheet.header
	for i, r := range res.Rows {
		if r.Status == ImportCreated {
			res.Created++
		} else {
			res.Failed++
			res.Rows[i].Cells = sheet.rows[i].cells
		}
	}
	if res.Created >= analyzeAfterImport {
		// Until autovacuum gets to it (a minute or more), the planner would
		// see the team as it was: members pages planned for a handful of
		// rows walk the wrong index and sort the whole team, several times
		// the cost of the page. The refresh is a job (AnalyzeMembersArgs),
		// queued once the rows are committed (queueAnalyze says why not in
		// their transactions); the import's rows stay committed either way.
		if err := s.queueAnalyze(ctx); err != nil {
			s.log.Warn("roster statistics refresh not queued after an import: members pages may be slow until autovacuum analyzes the table",
				"team_id", teamID, "created", res.Created, "err", err)
		}
	}
	return res, nil
}

// analyzeAfterImport is how many new members make an import queue a
// refresh of the planner's statistics (ANALYZE reads a bounded sample:
// 105 ms after 10,000 rows, 374 ms after 100,000, in the job).
const analyzeAfterImport = 1000

// importJob is one chunk on its way: the rows it writes, and once
// finished whether it committed.
type importJob struct {
	plans     []importPlan
	out       []ImportRow // the chunk's outcomes, valid once committed
	now       time.Time   // the chunk's created_at, taken in file order
	prev      *importJob  // the chunk before, still in flight when this one started
	locked    chan struct{}
	finished  chan struct{}
	committed bool // set before finished is closed
	err       error
}

// errPrevChunk rolls a chunk back because the chunk before it did not
// commit: it is written again after that chunk's rows, in file order.
var errPrevChunk = errors.New("the chunk before did not commit")

// writeImport plans the rows a chunk of importChunk at a time and writes
// them in file order, importInFlight chunks at once (see the file comment).
// No chunk is started after stopAt (unless it is zero).
func (s *Service) writeImport(ctx context.Context, teamID string, sheet *importSheet, groups importGroups, rows []ImportRow, stopAt time.Time,
	progress func(done int)) {
	runImport(ctx, importRun{
		sheet: sheet, groups: groups, rows: rows, stopAt: stopAt, progress: progress,
		now:    func() time.Time { return s.clock.Now().UTC() },
		write:  func(ctx context.Context, j *importJob) { s.importChunk(ctx, teamID, j) },
		addRow: func(ctx context.Context, p *importPlan) (string, error) { return s.importRow(ctx, teamID, p) },
	})
}

// importRun is what runImport needs: the sheet and where its outcomes go,
// and how to write a chunk (write closes j.locked once the chunk's phones
// are locked and j.finished once it committed or rolled back, committing
// only after j.prev committed) and a failed chunk's rows (addRow, one
// transaction each).
type importRun struct {
	sheet  *importSheet
	groups importGroups
	rows   []ImportRow
	stopAt time.Time
	now    func() time.Time
	write  func(ctx context.Context, j *importJob)
	addRow func(ctx context.Context, p *importPlan) (string, error)
	// progress hears how many rows (in file order) have their outcome,
	// after each chunk settles; nil for none.
	progress func(done int)
}

// runImport plans and writes the sheet's rows (see writeImport).
func runImport(ctx context.Context, r importRun) {
	sheet, groups, rows, stopAt := r.sheet, r.groups, r.rows, r.stopAt
	timedOut := fault.New(fault.Unavailable, CodeImportTimeout,
		"not imported: the import ran out of time before this row; import these rows again (rows already imported answer member_exists)")
	// plan checks the sheet's rows [from, to) without I/O; the rows that
	// pass get their member ids now, in file order.
	plan := func(from, to int) []importPlan {
		now := r.now()
		plans := make([]importPlan, 0, to-from)
		for i := from; i < to; i++ {
			p, ferr := sheet.plan(sheet.rows[i], groups, now)
			if ferr != nil {
				rows[i].Status, rows[i].Err = ImportFailed, ferr
				continue
			}
			p.idx, p.memberID = i, id.New("mem")
			plans = append(plans, p)
		}
		return plans
	}
	var (
		queue    [][]importPlan // planned chunks not yet started, in file order
		inFlight []*importJob   // started chunks, oldest first
		next     int            // the first sheet row not yet planned
	)
	// settle waits for the oldest chunk in flight and records its outcome.
	// When it did not commit, the chunks started after it roll back too
	// (each waits for the one before): its rows are written one transaction
	// each, then the later chunks are queued again to go after them.
	settle := func() {
		j := inFlight[0]
		inFlight = inFlight[1:]
		<-j.finished
		if r.progress != nil && len(j.plans) > 0 {
			defer func() { r.progress(j.plans[len(j.plans)-1].idx + 1) }()
		}
		if j.committed {
			for i := range j.plans {
				r := &rows[j.plans[i].idx]
				r.Status, r.MemberID, r.Err = j.out[i].Status, j.out[i].MemberID, j.out[i].Err
			}
			return
		}
		again := make([][]importPlan, 0, len(inFlight)+len(queue))
		for _, later := range inFlight {
			<-later.finished
			again = append(again, later.plans)
		}
		inFlight = nil
		queue = append(again, queue...)
		if ctx.Err() != nil {
			return
		}
		for _, p := range j.plans { // the chunk rolled back: one transaction per row
			row := &rows[p.idx]
			*row = ImportRow{Line: row.Line}
			id, err := r.addRow(ctx, &p)
			if err != nil {
				row.Status, row.Err = ImportFailed, rowFault(err)
				continue
			}
			row.Status, row.MemberID = ImportCreated, id
		}
	}
	for {
		if len(queue) == 0 && next < len(sheet.rows) {
			to := min(next+importChunk, len(sheet.rows))
			if plans := plan(next, to); len(plans) > 0 {
				queue = append(queue, plans)
			}
			next = to
			continue
		}
		if len(queue) == 0 {
			break
		}
		if len(inFlight) == importInFlight {
			settle()
			continue
		}
		if ctx.Err() != nil {
			break // the caller is gone; ImportMembers reports ctx's error
		}
		if !stopAt.IsZero() && time.Now().After(stopAt) {
			// Out of time: the chunks in flight finish (or go back to the
			// queue), and no row still queued or unplanned is started.
			for len(inFlight) > 0 {
				settle()
			}
			for _, c := range queue {
				for _, p := range c {
					rows[p.idx].Status, rows[p.idx].Err = ImportFailed, timedOut
				}
			}
			queue = nil
			for next < len(sheet.rows) { // the rest still get their own checks' outcome
				to := min(next+importChunk, len(sheet.rows))
				for _, p := range plan(next, to) {
					rows[p.idx].Status, rows[p.idx].Err = ImportFailed, timedOut
				}
				next = to
			}
			break
		}
		j := &importJob{plans: queue[0], now: r.now(), locked: make(chan struct{}), finished: make(chan struct{})}
		queue = queue[1:]
		if n := len(inFlight); n > 0 {
			j.prev = inFlight[n-1]
			// Chunks lock their phones in file order, so a later chunk
			// with a number of an earlier one reads the roster only once
			// that chunk committed.
			<-j.prev.locked
		}
		inFlight = append(inFlight, j)
		go r.write(ctx, j)
	}
	for len(inFlight) > 0 {
		settle()
	}
}

// importChunk decides and writes a chunk's rows in one transaction (see
// the file comment). It commits only after the chunk before it (j.prev)
// committed, and rolls back when that one did not.
func (s *Service) importChunk(ctx context.Context, teamID string, j *importJob) {
	var lockOnce sync.Once
	locked := func() { lockOnce.Do(func() { close(j.locked) }) }
	chunk := j.plans
	out := make([]ImportRow, len(chunk))
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		phones := make([]string, 0, len(chunk))
		var groupIDs []string
		for i := range chunk {
			phones = append(phones, chunk[i].phone)
			groupIDs = append(groupIDs, chunk[i].groups...)
		}
		phones, groupIDs = dedupe(phones), dedupe(groupIDs)
		err := s.st.Members.LockPhones(ctx, teamID, phones)
		locked()
		if err != nil {
			return err
		}
		st, err := s.st.Imports.ImportState(ctx, teamID, phones, groupIDs)
		if err != nil {
			return err
		}
		// Sized for every row created: no growing a chunk's slices row by row.
		nGroups, nValues := 0, 0
		for i := range chunk {
			nGroups += len(chunk[i].groups)
			nValues += len(chunk[i].values)
		}
		var (
			members = make([]domain.Member, 0, len(chunk))
			groups  = make([]domain.Membership, 0, nGroups)
			values  = make([]domain.CustomValue, 0, nValues)
			evs     = make([]events.Event, 0, len(chunk))
			history = make([]domain.ConsentEvent, 0, len(chunk))
		)
		now := j.now
		createdAt := now.UTC().Format(time.RFC3339Nano) // every member's created_at in member.joined
		for i := range chunk {
			p := &chunk[i]
			if ferr := decide(st, p); ferr != nil {
				out[i].Status, out[i].Err = ImportFailed, ferr
				continue
			}
			m := domain.Member{ID: p.memberID, TeamID: teamID, Name: p.name, Phone: p.phone, Email: p.email, Role: p.role,
				Status: p.status, CanSendBroadcasts: p.role.IsStaff(), TimeZone: p.timeZone, CreatedAt: now, UpdatedAt: now}
			setConsent(&m, p.consent)
			history = append(history, consentGiven(&m, domain.ChannelImport, p.consent, now))
			st.Entries[p.phone] = append(st.Entries[p.phone], domain.ImportEntry{ID: m.ID, Name: m.Name, Role: m.Role})
			members = append(members, m)
			for _, g := range p.groups {
				groups = append(groups, domain.Membership{GroupID: g, MemberID: m.ID})
			}
			for _, v := range p.values {
				values = append(values, domain.CustomValue{FieldID: v.fieldID, MemberID: m.ID, Value: v.value})
			}
			if m.Status == domain.StatusActive {
				evs = append(evs, memberEventAt(events.MemberJoined, &m, createdAt))
			}
			out[i].Status, out[i].MemberID = ImportCreated, m.ID
		}
		if len(members) > 0 {
			if err := s.st.Imports.CopyMembers(ctx, teamID, members, groups, values); err != nil {
				return err
			}
			if err := s.st.Consent.InsertConsentEvents(ctx, history); err != nil {
				return err
			}
			if err := events.PublishAll(ctx, s.events, teamID, evs); err != nil {
				return err
			}
		}
		if j.prev != nil {
			<-j.prev.finished
			if !j.prev.committed {
				return errPrevChunk
			}
		}
		return nil
	})
	locked()
	if err != nil {
		j.err = fmt.Errorf("import chunk: %w", err)
	} else {
		j.out, j.committed = out, true
	}
	close(j.finished)
}

// decide applies AddMember's checks after validation, in its order, to a
// row against the chunk's state (which includes the rows before it): its
// groups must still exist, then the add rules of checkNewEntry.
func decide(st *domain.ImportState, p *importPlan) *fault.Error {
	for _, g := range p.groups {
		if !st.Groups[g] {
			return fault.New(fault.Invalid, domain.CodeInvalidGroup, "group_ids names a group that does not exist on this team")
		}
	}
	if st.OptedOut[p.phone] {
		return fault.New(fault.Conflict, domain.CodeOptedOut, "this number opted out (texted STOP or was recorded); the API cannot add it")
	}
	for _, o := range st.Entries[p.phone] {
		if !domain.SameName(o.Name, p.name) {
			continue
		}
		if domain.Protected(o.Role, o.DashboardLogin) {
			return fault.New(fault.Forbidden, domain.CodeStaffMemberProtected, "this person is staff or has a dashboard login; change them in the dashboard")
		}
		return fault.New(fault.Conflict, domain.CodeMemberExists, "a member with this phone and name exists").With("existing_member_id", o.ID)
	}
	return nil
}

// importRow adds one member with their groups and values in one transaction.
func (s *Service) importRow(ctx context.Context, teamID string, p *importPlan) (string, error) {
	var memberID string
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		m, _, err := s.addMember(ctx, teamID, p.member, fromImport())
		if err != nil {
			return err
		}
		if len(p.groups) > 0 {
			// Re-checked in the transaction: a group may be deleted mid-import.
			groups, err := s.checkGroups(ctx, teamID, p.groups)
			if err != nil {
				return err
			}
			for _, g := range groups {
				if err := s.st.Groups.AddToGroup(ctx, teamID, g, m.ID); err != nil {
					return err
				}
			}
		}
		for _, v := range p.values {
			if err := s.st.Fields.SetCustomValue(ctx, m.ID, v.fieldID, v.value); err != nil {
				return err
			}
		}
		memberID = m.ID
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("import row: %w", err)
	}
	return memberID, nil
}

// rowFault is what a failed row reports: the use case's fault, or a
// server_error whose cause stays in Err (logged, never shown).
func rowFault(err error) *fault.Error {
	if f, ok := fault.As(err); ok && f.Kind != fault.Internal {
		return f
	}
	return &fault.Error{Kind: fault.Internal, Code: fault.CodeServerError, Message: "this row could not be written; import it again", Err: err}
}

// importGroups finds a team's groups by id or by name.
type importGroups struct {
	byID, byName map[string]string
}

// lookup resolves a groups cell token: an id, else a name (any case).
func (g importGroups) lookup(tok string) (string, bool) {
	if id, ok := g.byID[tok]; ok {
		return id, true
	}
	id, ok := g.byName[foldName(tok)]
	return id, ok
}

// groupIndex loads every group of a team, a page at a time.
func (s *Service) groupIndex(ctx context.Context, teamID string) (importGroups, error) {
	const page = 500
	idx := importGroups{byID: map[string]string{}, byName: map[string]string{}}
	for offset := 0; ; offset += page {
		gs, err := s.st.Groups.Groups(ctx, teamID, page, offset)
		if err != nil {
			return idx, err
		}
		for _, g := range gs[:min(len(gs), page)] {
			idx.byID[g.ID] = g.ID
			idx.byName[foldName(g.Name)] = g.ID
		}
		if len(gs) <= page {
			return idx, nil
		}
	}
}

// foldName is the lookup key of a group name: as the unique index has it,
// names are unique per team regardless of case.
func foldName(name string) string {
	return strings.ToLower(strings.TrimSpace(name))
}

// builtinColumn reports whether h (lowercased) is one of the import's own columns.
func builtinColumn(h string) bool {
	switch h {
	case "name", "phone", "email", "role", "status", "groups":
		return true
	}
	return false
}

// laterColumn reports whether h (lowercased) is one of the columns that
// came after custom fields: the consent record's and time_zone. A team's
// custom field with the same key keeps the column.
func laterColumn(h string) bool {
	switch h {
	case "consent_source", "consent_at", "consent_evidence", "time_zone":
		return true
	}
	return false
}

// parseImport checks the file as a whole: UTF-8 (a BOM is dropped), valid
// CSV, a header naming name and phone and no unknown column, and at most
// ImportMaxRows data rows. Any problem is a 400 for the whole request.
func parseImport(data []byte, fields []domain.CustomField) (*importSheet, error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if !utf8.Valid(data) {
		return nil, fault.Invalidf("the file is not UTF-8 text; nothing was imported")
	}
	// Postgres cannot store NUL in text: such a file is refused whole, like
	// one that is not UTF-8, before any row reaches the database.
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, fault.Invalidf("line %d holds a NUL character; nothing was imported", bytes.Count(data[:i], []byte("\n"))+1)
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1 // a short or long row is that row's error, not the file's
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fault.Invalidf("the file is empty: the first line must be a header row with at least name and phone")
	}
	if err != nil {
		return nil, csvFault(err)
	}
	sheet := &importSheet{columns: len(header), builtin: map[string]int{}, header: header}
	byKey := make(map[string]domain.CustomField, len(fields))
	for _, f := range fields {
		byKey[f.Key] = f
	}
	seen := map[string]bool{}
	var unknown []string
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		switch {
		case h == "":
			return nil, fault.Invalidf("header column %d has no name; nothing was imported", i+1)
		case seen[h]:
			return nil, fault.Invalidf("column %q appears twice in the header; nothing was imported", h)
		case builtinColumn(h):
			sheet.builtin[h] = i
		case laterColumn(h) && !customKey(byKey, h):
			sheet.builtin[h] = i
		default:
			f, ok := byKey[h]
			if !ok {
				unknown = append(unknown, h)
				continue
			}
			sheet.fields = append(sheet.fields, importField{index: i, field: f})
		}
		seen[h] = true
	}
	if len(unknown) > 0 {
		return nil, fault.Invalidf("unknown column %s: columns are name, phone, email, role, status, groups, consent_source, consent_at, consent_evidence, time_zone and the team's custom field keys; nothing was imported",
			quoteJoin(unknown))
	}
	var missing []string
	for _, req := range []string{"name", "phone"} {
		if _, ok := sheet.builtin[req]; !ok {
			missing = append(missing, req)
		}
	}
	if len(missing) > 0 {
		return nil, fault.Invalidf("the header row must include the name and phone columns; missing: %s; nothing was imported", strings.Join(missing, ", "))
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvFault(err)
		}
		if blank(rec) {
			continue
		}
		if len(sheet.rows) == ImportMaxRows {
			return nil, fault.Invalidf("the file has more than %d data rows; split it into several imports", ImportMaxRows)
		}
		line, _ := cr.FieldPos(0)
		sheet.rows = append(sheet.rows, importRecord{line: line, cells: rec})
	}
	return sheet, nil
}

func csvFault(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		where := fmt.Sprintf("line %d, column %d", pe.Line, pe.Column)
		if pe.StartLine != pe.Line {
			where = fmt.Sprintf("the record starting on line %d (%s)", pe.StartLine, where)
		}
		return fault.Invalidf("the file is not valid CSV: %s: %v; nothing was imported", where, pe.Err)
	}
	return fmt.Errorf("read import: %w", err)
}

func blank(rec []string) bool {
	for _, c := range rec {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

func customKey(byKey map[string]domain.CustomField, h string) bool {
	_, ok := byKey[h]
	return ok
}

func quoteJoin(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// validPhone is domain.ValidPhone, parsed once per distinct cell: parsing
// is most of a row's checking, and a family's number is often on several
// rows (the guardian's and each child's).
func (sh *importSheet) validPhone(cell string) (string, error) {
	if e164, ok := sh.phones[cell]; ok {
		return e164, nil
	}
	e164, err := domain.ValidPhone("phone", cell)
	if err != nil {
		return "", err // each invalid row gets its own fault
	}
	if sh.phones == nil {
		sh.phones = map[string]string{}
	}
	sh.phones[cell] = e164
	return e164, nil
}

// validTimeZone is domain.ValidTimeZone, checked once per distinct cell
// (loading a zone reads and parses its data).
func (sh *importSheet) validTimeZone(cell string) (string, error) {
	if zone, ok := sh.zones[cell]; ok {
		return zone, nil
	}
	zone, err := domain.ValidTimeZone("time_zone", cell)
	if err != nil {
		return "", err
	}
	if sh.zones == nil {
		sh.zones = map[string]string{}
	}
	sh.zones[cell] = zone
	return zone, nil
}

// plan checks a row without I/O, in the order AddMember checks a member
// (so a row reports the error a single add would), then groups and values.
func (sh *importSheet) plan(rec importRecord, groups importGroups, now time.Time) (importPlan, *fault.Error) {
	var p importPlan
	if len(rec.cells) != sh.columns {
		return p, fault.Invalidf("the row has %d fields; the header has %d", len(rec.cells), sh.columns)
	}
	cell := func(col string) string {
		if i, ok := sh.builtin[col]; ok {
			return strings.TrimSpace(rec.cells[i])
		}
		return ""
	}
	var err error
	in := NewMember{Name: cell("name"), Phone: cell("phone"), Email: cell("email"),
		Role: strings.ToLower(cell("role")), Status: strings.ToLower(cell("status"))}
	if in.Role == "" {
		in.Role = "athlete"
	}
	if p.name, err = domain.ValidName("name", in.Name); err != nil {
		return p, asFault(err)
	}
	if p.phone, err = sh.validPhone(in.Phone); err != nil {
		return p, asFault(err)
	}
	if p.email, err = domain.ValidEmail(in.Email); err != nil {
		return p, asFault(err)
	}
	if p.role, err = domain.ValidRole(in.Role, true); err != nil {
		return p, asFault(err)
	}
	if p.timeZone, err = sh.validTimeZone(cell("time_zone")); err != nil {
		return p, asFault(err)
	}
	in.TimeZone = p.timeZone
	switch in.Status {
	case "", domain.StatusActive:
		p.status = domain.StatusActive
	case domain.StatusPending:
		p.status = domain.StatusPending
	default:
		return p, fault.Invalidf("status must be pending or active")
	}
	ci := domain.ConsentInput{Source: strings.ToLower(cell("consent_source")), Evidence: cell("consent_evidence")}
	if v := cell("consent_at"); v != "" {
		at, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return p, fault.Invalidf("consent_at must be an RFC 3339 time with an offset, such as 2026-11-24T18:00:00Z")
		}
		ci.At = &at
	}
	if p.consent, err = domain.ValidConsent(ci, domain.ConsentImport, now); err != nil {
		return p, asFault(err)
	}
	// Should the chunk roll back, the row is added alone with the same record.
	in.Consent = domain.ConsentInput{Source: p.consent.Source, At: &p.consent.At, Evidence: p.consent.Evidence}
	p.member = in
	for _, tok := range strings.Split(cell("groups"), ";") {
		tok = strings.TrimSpace(tok)
		if tok == "" {
			continue
		}
		id, ok := groups.lookup(tok)
		if !ok {
			return p, fault.Newf(fault.Invalid, domain.CodeInvalidGroup, "groups: %q is not a group name or id of this team", tok)
		}
		p.groups = append(p.groups, id)
	}
	p.groups = dedupe(p.groups)
	for _, f := range sh.fields {
		v := strings.TrimSpace(rec.cells[f.index])
		if v == "" {
			continue
		}
		if len(v) > importMaxValue {
			return p, fault.Invalidf("%s: longer than %d bytes", f.field.Key, importMaxValue)
		}
		p.values = append(p.values, importValue{fieldID: f.field.ID, value: v})
	}
	return p, nil
}

// asFault returns the fault a domain check gave (they always give one).
func asFault(err error) *fault.Error {
	if f, ok := fault.As(err); ok {
		return f
	}
	return fault.Invalidf("%v", err)
}
