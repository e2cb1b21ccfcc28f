package service

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// chunkLog is a fake chunk writer's record: what was written, in order.
type chunkLog struct {
	mu          sync.Mutex
	failOnce    map[int]bool // chunks (by their first row) whose transaction fails once
	last        int          // the last chunk's first row: it does not wait for a next one
	written     []int        // rows, in the order their writes became visible
	inFlight    int
	maxInFlight int
	started     map[int]chan struct{} // closed once a chunk (by its first row) has started
	lateNext    bool                  // a chunk waited in vain for the next one to start
}

func (l *chunkLog) startedCh(first int) chan struct{} {
	if l.started == nil {
		l.started = map[int]chan struct{}{}
	}
	c, ok := l.started[first]
	if !ok {
		c = make(chan struct{})
		l.started[first] = c
	}
	return c
}

// write follows importChunk's protocol without a database: lock, then
// commit only after the chunk before committed.
func (l *chunkLog) write(_ context.Context, j *importJob) {
	close(j.locked)
	first := j.plans[0].idx
	l.mu.Lock()
	l.inFlight++
	l.maxInFlight = max(l.maxInFlight, l.inFlight)
	fail := l.failOnce[first]
	delete(l.failOnce, first)
	if c := l.startedCh(first); !isClosed(c) {
		close(c)
	}
	next := l.startedCh(first + importChunk)
	l.mu.Unlock()
	ok := !fail
	if ok && j.prev != nil {
		<-j.prev.finished
		ok = j.prev.committed
	}
	if ok && first != l.last {
		// The next chunk starts while this one is still open (a deadline,
		// not a timing: it starts as soon as this one has locked and the
		// one before it has settled).
		select {
		case <-next:
		case <-time.After(10 * time.Second):
			l.mu.Lock()
			l.lateNext = true
			l.mu.Unlock()
		}
	}
	l.mu.Lock()
	l.inFlight--
	if ok {
		j.out = make([]ImportRow, len(j.plans))
		for i, p := range j.plans {
			j.out[i] = ImportRow{Status: ImportCreated, MemberID: p.memberID}
			l.written = append(l.written, p.idx)
		}
		j.committed = true
	}
	l.mu.Unlock()
	close(j.finished)
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func (l *chunkLog) addRow(_ context.Context, p *importPlan) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.written = append(l.written, p.idx)
	return p.memberID, nil
}

func testSheet(t *testing.T, n int, invalid map[int]bool) *importSheet {
	t.Helper()
	var b strings.Builder
	b.WriteString("name,phone\n")
	for i := range n {
		phone := fmt.Sprintf("202-%03d-%04d", 234+i/10000, i%10000)
		if invalid[i] {
			phone = "555-0100"
		}
		fmt.Fprintf(&b, "Member %d,%s\n", i, phone)
	}
	sheet, err := parseImport([]byte(b.String()), nil)
	require.NoError(t, err)
	return sheet
}

func testRows(sheet *importSheet) []ImportRow {
	rows := make([]ImportRow, len(sheet.rows))
	for i, rec := range sheet.rows {
		rows[i] = ImportRow{Line: rec.line}
	}
	return rows
}

// TestRunImportOrder: chunks written two at a time still become visible in
// file order; a chunk that fails has its rows written one at a time, and
// the chunk in flight after it rolls back and is written again after them.
func TestRunImportOrder(t *testing.T) {
	const n = 5500
	invalid := map[int]bool{7: true, 2500: true}
	sheet := testSheet(t, n, invalid)
	rows := testRows(sheet)
	l := &chunkLog{failOnce: map[int]bool{2000: true}, last: 5000}
	clock := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
	runImport(context.Background(), importRun{
		sheet: sheet, groups: importGroups{byID: map[string]string{}, byName: map[string]string{}}, rows: rows,
		now:   func() time.Time { clock = clock.Add(time.Microsecond); return clock },
		write: l.write, addRow: l.addRow,
	})

	require.False(t, l.lateNext, "a chunk starts while the one before is open")
	require.Equal(t, importInFlight, l.maxInFlight, "chunks overlap, at most importInFlight at once")
	require.Len(t, l.written, n-len(invalid))
	for k := 1; k < len(l.written); k++ {
		require.Less(t, l.written[k-1], l.written[k], "rows become visible in file order")
	}
	ids := map[string]bool{}
	for i, r := range rows {
		require.Equal(t, i+2, r.Line)
		if invalid[i] {
			require.Equal(t, ImportFailed, r.Status)
			require.Equal(t, "invalid_phone", r.Err.Code, "line %d", r.Line)
			continue
		}
		require.Equal(t, ImportCreated, r.Status, "line %d", r.Line)
		require.False(t, ids[r.MemberID], "line %d: member id %s twice", r.Line, r.MemberID)
		ids[r.MemberID] = true
	}
}

// TestRunImportOutOfTime: once the budget is spent no chunk starts; valid
// rows fail with import_timeout and invalid ones keep their own error.
func TestRunImportOutOfTime(t *testing.T) {
	sheet := testSheet(t, 2500, map[int]bool{1200: true})
	rows := testRows(sheet)
	l := &chunkLog{}
	runImport(context.Background(), importRun{
		sheet: sheet, groups: importGroups{byID: map[string]string{}, byName: map[string]string{}}, rows: rows,
		stopAt: time.Now().Add(-time.Second),
		now:    func() time.Time { return time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC) },
		write:  l.write, addRow: l.addRow,
	})
	require.Empty(t, l.written)
	for i, r := range rows {
		want := CodeImportTimeout
		if i == 1200 {
			want = "invalid_phone"
		}
		require.Equal(t, ImportFailed, r.Status, "line %d", r.Line)
		require.Equal(t, want, r.Err.Code, "line %d", r.Line)
	}
}

// TestImportPhoneParsedOnce: a phone cell seen before is not parsed again,
// and gives the same number; an invalid one gives each row its error.
func TestImportPhoneParsedOnce(t *testing.T) {
	sh := &importSheet{}
	a, err := sh.validPhone("(202) 234-0001")
	require.NoError(t, err)
	require.Equal(t, "+12022340001", a)
	sh.phones["(202) 234-0001"] = "+19999999999" // a cached answer is used as is
	b, err := sh.validPhone("(202) 234-0001")
	require.NoError(t, err)
	require.Equal(t, "+19999999999", b)
	_, err1 := sh.validPhone("555-0100")
	_, err2 := sh.validPhone("555-0100")
	require.Error(t, err1)
	require.Error(t, err2)
	require.NotSame(t, err1, err2)
	require.Len(t, sh.phones, 1)
}
