// Package mail is the webhooks module's e-mail port and its two adapters.
// Both record every message in webhook_notifications, in the caller's
// transaction, so the admin's notifications log always shows what the
// service sent. The recording adapter stops there (no relay configured);
// the SMTP adapter also enqueues a job, in the same transaction, that hands
// the message to the relay after commit.
package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/smtp"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/config"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/jobs"
)

// Message is one e-mail to one member.
type Message struct {
	TeamID   string
	MemberID string
	To       string // e-mail address; "" when the member has none (recorded, not sent)
	Subject  string
	Body     string
}

// Mailer sends e-mail notices. Send joins the transaction carried by ctx:
// the message is recorded (and, with a relay, queued) only if it commits.
type Mailer interface {
	Send(ctx context.Context, m Message) error
}

// Notification statuses.
const (
	StatusRecorded  = "recorded"   // no relay configured: the record is the delivery
	StatusQueued    = "queued"     // waiting for the SMTP job
	StatusSent      = "sent"       // accepted by the relay
	StatusFailed    = "failed"     // the relay refused it for good
	StatusNoAddress = "no_address" // the member has no e-mail address
)

// Store records e-mails (postgres.Repo), in the transaction carried by ctx.
type Store interface {
	InsertNotification(ctx context.Context, n *domain.Notification) error
	// Notification reads one of a team's e-mails (domain.ErrNotFound if none).
	Notification(ctx context.Context, teamID, id string) (*domain.Notification, error)
	// MarkNotification sets an e-mail's status (sent or failed).
	MarkNotification(ctx context.Context, teamID, id, status string, errMsg *string, sentAt *time.Time) error
}

// Recorder is the default adapter: it records messages and sends nothing.
type Recorder struct {
	repo  Store
	clock clock.Clock
}

// NewRecorder returns the recording adapter.
func NewRecorder(repo Store, clk clock.Clock) *Recorder {
	return &Recorder{repo: repo, clock: clk}
}

// Send records m.
func (r *Recorder) Send(ctx context.Context, m Message) error {
	status := StatusRecorded
	if m.To == "" {
		status = StatusNoAddress
	}
	_, err := r.record(ctx, m, status)
	return err
}

func (r *Recorder) record(ctx context.Context, m Message, status string) (*domain.Notification, error) {
	n := &domain.Notification{ID: id.New("ntf"), TeamID: m.TeamID, MemberID: m.MemberID, To: m.To,
		Subject: m.Subject, Body: m.Body, Status: status, CreatedAt: r.clock.Now().UTC()}
	if err := r.repo.InsertNotification(ctx, n); err != nil {
		return nil, fmt.Errorf("record e-mail: %w", err)
	}
	return n, nil
}

// SendArgs is the job that hands one recorded message to the relay.
type SendArgs struct {
	TeamID         string `json:"team_id"`
	NotificationID string `json:"notification_id"`
}

// Kind names the job.
func (SendArgs) Kind() string { return "webhooks.mail" }

// InsertOpts gives the relay a few tries over about a day before giving up.
func (SendArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 10} }

// SMTPSettings configure the relay (SMTP_ADDR, SMTP_FROM, SMTP_USERNAME, SMTP_PASSWORD).
type SMTPSettings struct {
	Addr     string
	From     string
	Username string
	Password string
	Timeout  time.Duration // per message; 0 means 30 s
}

// SettingsFrom reads the SMTP settings of cfg.
func SettingsFrom(cfg config.Config) SMTPSettings {
	return SMTPSettings{Addr: cfg.SMTPAddr, From: cfg.SMTPFrom, Username: cfg.SMTPUsername, Password: cfg.SMTPPassword}
}

// SMTP records messages and delivers them through a relay with net/smtp.
type SMTP struct {
	rec  *Recorder
	jobs *jobs.Jobs
	set  SMTPSettings
}

// NewSMTP returns the SMTP adapter.
func NewSMTP(rec *Recorder, j *jobs.Jobs, s SMTPSettings) *SMTP {
	if s.Timeout <= 0 {
		s.Timeout = 30 * time.Second
	}
	return &SMTP{rec: rec, jobs: j, set: s}
}

// Send records m as queued and enqueues its delivery, both in ctx's transaction.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	if m.To == "" {
		_, err := s.rec.record(ctx, m, StatusNoAddress)
		return err
	}
	n, err := s.rec.record(ctx, m, StatusQueued)
	if err != nil {
		return err
	}
	if _, err := s.jobs.Insert(ctx, SendArgs{TeamID: n.TeamID, NotificationID: n.ID}, nil); err != nil {
		return fmt.Errorf("queue e-mail: %w", err)
	}
	return nil
}

// Deliver hands a queued message to the relay and marks it sent. A message
// already sent is left alone, so a retried job does not send it twice
// after a recorded success. final marks a failure as permanent.
func (s *SMTP) Deliver(ctx context.Context, a SendArgs, final bool) error {
	n, err := s.rec.repo.Notification(ctx, a.TeamID, a.NotificationID)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if n.Status != StatusQueued {
		return nil
	}
	if err := s.send(ctx, n.To, Compose(s.set.From, n.To, n.Subject, n.Body, s.rec.clock.Now())); err != nil {
		if final {
			msg := err.Error()
			if mErr := s.rec.repo.MarkNotification(ctx, n.TeamID, n.ID, StatusFailed, &msg, nil); mErr != nil {
				return errors.Join(err, mErr)
			}
		}
		return fmt.Errorf("send e-mail %s: %w", n.ID, err)
	}
	now := s.rec.clock.Now().UTC()
	return s.rec.repo.MarkNotification(ctx, n.TeamID, n.ID, StatusSent, nil, &now)
}

// send speaks SMTP to the relay: STARTTLS when offered, PLAIN auth when
// configured (net/smtp refuses it without TLS except on localhost).
func (s *SMTP) send(ctx context.Context, to string, msg []byte) error {
	ctx, cancel := context.WithTimeout(ctx, s.set.Timeout)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", s.set.Addr)
	if err != nil {
		return fmt.Errorf("dial relay: %w", err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	host, _, _ := net.SplitHostPort(s.set.Addr)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return fmt.Errorf("smtp greeting: %w", err)
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}); err != nil {
			return fmt.Errorf("smtp starttls: %w", err)
		}
	}
	if s.set.Username != "" {
		if err := c.Auth(smtp.PlainAuth("", s.set.Username, s.set.Password, host)); err != nil {
			return fmt.Errorf("smtp auth: %w", err)
		}
	}
	if err := c.Mail(s.set.From); err != nil {
		return fmt.Errorf("smtp mail from: %w", err)
	}
	if err := c.Rcpt(to); err != nil {
		return fmt.Errorf("smtp rcpt to: %w", err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp data: %w", err)
	}
	if _, err := w.Write(msg); err != nil {
		return fmt.Errorf("smtp data: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("smtp data: %w", err)
	}
	return c.Quit()
}

// Compose renders a plain-text UTF-8 message with CRLF line ends.
func Compose(from, to, subject, body string, at time.Time) []byte {
	var b strings.Builder
	noBreaks := strings.NewReplacer("\r", " ", "\n", " ") // no header injection
	hdr := func(k, v string) { b.WriteString(k + ": " + noBreaks.Replace(v) + "\r\n") }
	hdr("From", from)
	hdr("To", to)
	hdr("Subject", mime.QEncoding.Encode("utf-8", subject))
	hdr("Date", at.UTC().Format(time.RFC1123Z))
	hdr("MIME-Version", "1.0")
	hdr("Content-Type", "text/plain; charset=utf-8")
	hdr("Content-Transfer-Encoding", "8bit")
	b.WriteString("\r\n")
	body = strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\n", "\r\n")
	b.WriteString(body)
	if !strings.HasSuffix(body, "\r\n") {
		b.WriteString("\r\n")
	}
	return []byte(b.String())
}
