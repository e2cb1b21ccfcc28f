package mail

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/modules/webhooks/internal/postgres"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/metrics"
)

var srv *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &srv)) }

// smtpServer is a minimal SMTP relay that accepts every message (no
// STARTTLS, no AUTH) and keeps what it got.
type smtpServer struct {
	ln   net.Listener
	mu   sync.Mutex
	msgs []smtpMessage
}

type smtpMessage struct {
	From, To string
	Data     string
}

func newSMTPServer(t *testing.T) *smtpServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &smtpServer{ln: ln}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

func (s *smtpServer) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	say := func(line string) { _, _ = io.WriteString(c, line+"\r\n") }
	say("220 relay.test ESMTP")
	var m smtpMessage
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.ToUpper(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			say("250 relay.test")
		case strings.HasPrefix(cmd, "MAIL FROM:"):
			m.From = strings.TrimSpace(line[len("MAIL FROM:"):])
			say("250 OK")
		case strings.HasPrefix(cmd, "RCPT TO:"):
			m.To = strings.TrimSpace(line[len("RCPT TO:"):])
			say("250 OK")
		case cmd == "DATA":
			say("354 go ahead")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(l)
			}
			m.Data = b.String()
			s.mu.Lock()
			s.msgs = append(s.msgs, m)
			s.mu.Unlock()
			say("250 queued")
		case cmd == "QUIT":
			say("221 bye")
			return
		default:
			say("250 OK")
		}
	}
}

func (s *smtpServer) messages() []smtpMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]smtpMessage(nil), s.msgs...)
}

func TestCompose(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	msg := string(Compose("teamtext <noreply@teamtext.test>", "coach@team.test", "Webhook turned off: ünïcode\r\nBcc: evil@x",
		"line one\nline two", at))
	require.Contains(t, msg, "From: teamtext <noreply@teamtext.test>\r\n")
	require.Contains(t, msg, "To: coach@team.test\r\n")
	require.Contains(t, msg, "Subject: =?utf-8?q?")
	require.NotContains(t, msg, "\r\nBcc:", "no header injection")
	require.Contains(t, msg, "Date: Sun, 22 Nov 2026 10:00:00 +0000\r\n")
	require.True(t, strings.HasSuffix(msg, "\r\n\r\nline one\r\nline two\r\n"), msg)
}

// TestRecorderAndSMTP: both adapters record in the caller's transaction;
// SMTP also queues a job that hands the message to the relay once.
func TestRecorderAndSMTP(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := srv.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	repo := postgres.NewRepo(d)
	clk := clock.Real{}
	j, err := jobs.New(d, clk, slog.New(slog.DiscardHandler), jobs.Options{})
	require.NoError(t, err)
	_, err = jobs.NewRunner(j, []jobs.Registration{func(w *river.Workers) { river.AddWorker(w, &noopMail{}) }}, metrics.New(), jobs.Options{})
	require.NoError(t, err)
	rec := NewRecorder(repo, clk)
	relay := newSMTPServer(t)
	s := NewSMTP(rec, j, SMTPSettings{Addr: relay.ln.Addr().String(), From: "noreply@teamtext.test"})

	send := func(m Mailer, msg Message) {
		t.Helper()
		require.NoError(t, d.Tx(ctx, func(ctx context.Context) error { return m.Send(ctx, msg) }))
	}
	send(rec, Message{TeamID: "t1", MemberID: "m1", To: "a@team.test", Subject: "s", Body: "b"})
	send(rec, Message{TeamID: "t1", MemberID: "m2", Subject: "s", Body: "b"})
	send(s, Message{TeamID: "t1", MemberID: "m3", To: "c@team.test", Subject: "Webhook off", Body: "hello"})
	ns, err := repo.Notifications(ctx, "t1", 10, 0)
	require.NoError(t, err)
	require.Len(t, ns, 3)
	byMember := map[string]domain.Notification{}
	for _, n := range ns {
		byMember[n.MemberID] = n
	}
	require.Equal(t, StatusRecorded, byMember["m1"].Status)
	require.Equal(t, StatusNoAddress, byMember["m2"].Status)
	queued := byMember["m3"]
	require.Equal(t, StatusQueued, queued.Status)
	var kinds []string
	require.NoError(t, d.Bun.NewRaw(`SELECT kind FROM river_job`).Scan(ctx, &kinds))
	require.Equal(t, []string{"webhooks.mail"}, kinds)

	// The job sends it; a retried job does not send it again.
	args := SendArgs{TeamID: "t1", NotificationID: queued.ID}
	require.NoError(t, s.Deliver(ctx, args, false))
	require.NoError(t, s.Deliver(ctx, args, false))
	got := relay.messages()
	require.Len(t, got, 1)
	require.Equal(t, "<noreply@teamtext.test>", got[0].From)
	require.Equal(t, "<c@team.test>", got[0].To)
	require.Contains(t, got[0].Data, "Subject: Webhook off\r\n")
	require.Contains(t, got[0].Data, "\r\n\r\nhello\r\n")
	n, err := repo.Notification(ctx, "t1", queued.ID)
	require.NoError(t, err)
	require.Equal(t, StatusSent, n.Status)
	require.NotNil(t, n.SentAt)

	// A relay that cannot be reached: retried by River, failed for good on the last try.
	down := NewSMTP(rec, j, SMTPSettings{Addr: "127.0.0.1:1", From: "noreply@teamtext.test", Timeout: time.Second})
	send(down, Message{TeamID: "t1", MemberID: "m4", To: "d@team.test", Subject: "s", Body: "b"})
	ns, err = repo.Notifications(ctx, "t1", 1, 0)
	require.NoError(t, err)
	a := SendArgs{TeamID: "t1", NotificationID: ns[0].ID}
	require.Error(t, down.Deliver(ctx, a, false))
	n, _ = repo.Notification(ctx, "t1", a.NotificationID)
	require.Equal(t, StatusQueued, n.Status)
	require.Error(t, down.Deliver(ctx, a, true))
	n, _ = repo.Notification(ctx, "t1", a.NotificationID)
	require.Equal(t, StatusFailed, n.Status)
	require.NotNil(t, n.Error)
}

// noopMail registers the job kind for the insert-only client.
type noopMail struct{ river.WorkerDefaults[SendArgs] }

func (*noopMail) Work(context.Context, *river.Job[SendArgs]) error { return nil }
