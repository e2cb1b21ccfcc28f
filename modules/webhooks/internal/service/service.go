// Package service holds the webhooks module's use cases: subscriptions made
// through the API or the dashboard, turning them back on, test events, the
// logs the dashboard reads, the roster's signals (key revoked, owner
// inactive) and the delivery attempt with its retry and auto-disable rules.
// Each runs in one transaction with the jobs and e-mails it schedules.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/webhooks/internal/delivery"
	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/modules/webhooks/internal/eventlog"
	"github.com/teamtext/teamtext/modules/webhooks/internal/guard"
	"github.com/teamtext/teamtext/modules/webhooks/internal/mail"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
)

// URLChecker is the save-time URL check (*guard.Guard).
type URLChecker interface {
	Check(ctx context.Context, raw string) (*url.URL, error)
}

// Sender makes one signed delivery request (*delivery.Sender).
type Sender interface {
	Send(ctx context.Context, r delivery.Request) delivery.Result
}

// Inserter enqueues a job in the transaction carried by ctx (*jobs.Jobs).
type Inserter interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

// Transactor runs fn in a transaction carried by its ctx (*db.DB); a
// nested call joins the outer one. TxRetry runs it again when Postgres
// reports a deadlock or a serialization failure.
type Transactor interface {
	Tx(ctx context.Context, fn func(ctx context.Context) error) error
	TxRetry(ctx context.Context, fn func(ctx context.Context) error) error
}

// WebhookStore is what the use cases need of the webhooks' storage
// (postgres.Repo). Every method joins the transaction carried by ctx;
// reads and changes by id answer domain.ErrNotFound for another team's id.
type WebhookStore interface {
	// LockTeam serialises webhook creation for a team until the transaction ends.
	LockTeam(ctx context.Context, teamID string) error
	CountWebhooks(ctx context.Context, teamID string) (int, error)
	InsertWebhook(ctx context.Context, w *domain.Webhook) error
	// Webhooks lists a team's webhooks, oldest first, limit+1 rows.
	Webhooks(ctx context.Context, teamID string, limit, offset int) ([]domain.Webhook, error)
	// Webhook reads one.
	Webhook(ctx context.Context, teamID, id string) (*domain.Webhook, error)
	// LockWebhook reads one locked for the rest of the transaction.
	LockWebhook(ctx context.Context, teamID, id string) (*domain.Webhook, error)
	// UpdateWebhook locks one, lets change alter it and stores the result
	// (nothing when change fails).
	UpdateWebhook(ctx context.Context, teamID, id string, change func(*domain.Webhook) error) (*domain.Webhook, error)
	// DeleteWebhook deletes one with its deliveries and returns it.
	DeleteWebhook(ctx context.Context, teamID, id string) (*domain.Webhook, error)
	// DeleteByKey deletes the webhooks made with an API key; their ids.
	DeleteByKey(ctx context.Context, teamID, keyID string) ([]string, error)
	// DisableDashboardOwnedBy turns off the member's enabled dashboard-made webhooks; their ids.
	DisableDashboardOwnedBy(ctx context.Context, teamID, ownerID, reason string, now time.Time) ([]string, error)
	// Attempts lists a webhook's attempts, newest first, limit+1 rows.
	Attempts(ctx context.Context, teamID, webhookID string, limit, offset int) ([]domain.Attempt, error)
	// Notifications lists a team's e-mails, newest first, limit+1 rows.
	Notifications(ctx context.Context, teamID string, limit, offset int) ([]domain.Notification, error)
}

// DeliveryStore is what the use cases need of the deliveries' storage
// (postgres.Repo), with the same rules as WebhookStore.
type DeliveryStore interface {
	// DeleteDelivery deletes a delivery whose webhook is gone.
	DeleteDelivery(ctx context.Context, teamID, id string) error
	// CancelDelivery ends a pending delivery whose webhook is off (domain.Delivery.Cancel).
	CancelDelivery(ctx context.Context, teamID, id string, now time.Time) error
	// RecordFailure records a failed attempt: domain.Webhook.Failed and
	// domain.Delivery.Failed in one statement.
	RecordFailure(ctx context.Context, a *domain.Attempt, next *time.Time, now time.Time) (domain.Failure, error)
	// Deliveries lists a webhook's deliveries of an API status ("" all),
	// newest first, limit+1 rows, without their attempts.
	Deliveries(ctx context.Context, teamID, webhookID, status string, limit, offset int) ([]domain.Listed, error)
	// AttemptsOf returns the attempts of deliveries, oldest first per delivery.
	AttemptsOf(ctx context.Context, teamID string, deliveryIDs []string) (map[string][]domain.Attempt, error)
	// UpdateDelivery locks one of a webhook's deliveries, lets change alter
	// it and stores the result (nothing when change fails).
	UpdateDelivery(ctx context.Context, teamID, webhookID, id string, change func(*domain.Delivery) error) (*domain.Delivery, error)
	// Recover queues a webhook's deliveries recoverable since since
	// (domain.Delivery.Recoverable, Recover); how many.
	Recover(ctx context.Context, teamID, webhookID string, since, now time.Time) (int, error)
}

// QueueStore is what the pump needs of a throttled webhook's queue (postgres.Repo).
type QueueStore interface {
	// Enqueue queues a delivery due at attempt; false when it is not due.
	Enqueue(ctx context.Context, teamID, id string, attempt int, now time.Time) (bool, error)
	// ClaimPump reports true when the queue had no pump job (the caller inserts one).
	ClaimPump(ctx context.Context, teamID, webhookID string) (bool, error)
	// FinishPump ends the pump if the queue is empty; whether it ended.
	FinishPump(ctx context.Context, teamID, webhookID string) (bool, error)
	QueueSlot(ctx context.Context, webhookID string) (*time.Time, error)
	SaveSlot(ctx context.Context, webhookID string, at time.Time) error
	// Queued reads up to limit queued deliveries, in order.
	Queued(ctx context.Context, teamID, webhookID string, limit int) ([]*domain.Work, error)
	// CancelQueued ends every queued delivery of a webhook that is off; how many.
	CancelQueued(ctx context.Context, teamID, webhookID string, now time.Time) (int64, error)
}

// Store is all the storage the use cases need (postgres.Repo).
type Store interface {
	WebhookStore
	DeliveryStore
	QueueStore
}

// DeliveryPath is the delivery worker's read and record, batched under
// load (*batch.Deliveries).
type DeliveryPath interface {
	// Work reads a delivery with its webhook and event; domain.ErrNotFound
	// when it is gone (or another team's).
	Work(ctx context.Context, teamID, deliveryID string) (*domain.Work, error)
	// RecordSuccess records a successful attempt atomically; false when it
	// was recorded already.
	RecordSuccess(ctx context.Context, a *domain.Attempt, now time.Time) (bool, error)
}

// TestPublisher publishes an event to one webhook (*eventlog.Log).
type TestPublisher interface {
	PublishTo(ctx context.Context, ev events.Event, webhookID string) (eventlog.Published, error)
}

// Deps are the service's collaborators.
type Deps struct {
	DB      Transactor
	Repo    Store
	Path    DeliveryPath
	Log     TestPublisher
	Guard   URLChecker
	Sender  Sender
	Jobs    Inserter
	Mailer  mail.Mailer
	Teams   rosterapi.Teams
	Members rosterapi.Members
	Billing billingapi.Accounts
	Clock   clock.Clock
	Logger  *slog.Logger
	// SecretOverlap is how long a rotated-out secret keeps signing
	// (WEBHOOK_SECRET_OVERLAP, 24h by default; 0: not at all).
	SecretOverlap time.Duration
}

// Service is the webhooks module's application layer.
type Service struct{ Deps }

// New builds the service.
func New(d Deps) *Service { return &Service{Deps: d} }

var (
	errWebhookNotFound = fault.NotFoundf("webhook not found")
	errNotKeyOwner     = fault.New(fault.Forbidden, fault.CodeForbidden,
		"only an active head coach or team director who may send broadcasts can manage webhooks")
	errPlanRequired = fault.New(fault.Forbidden, auth.CodePlanRequired, "webhooks need the Team Plus plan or above")
	errWebhookOff   = fault.New(fault.Conflict, fault.CodeConflict, "the webhook is turned off; turn it on first")
)

func mapNotFound(err error) error {
	if errors.Is(err, domain.ErrNotFound) {
		return errWebhookNotFound
	}
	return err
}

// NewWebhook is a creation request, from the API or the dashboard.
type NewWebhook struct {
	TeamID    string
	URL       string
	Events    []string
	Source    string // domain.SourceAPI or domain.SourceDashboard
	CreatedBy string // member id: the key's creator, or the dashboard user
	KeyID     string // the API key used (API-made only)
	// MaxPerSecond is the throttle (nil: no limit).
	MaxPerSecond *int
}

// Created is a new webhook with its secret, shown once.
type Created struct {
	Webhook domain.Webhook
	Secret  string
}

// Create makes a webhook. The creator must be a key owner and the team on
// Team Plus or above; the events and URL are checked (the URL resolved
// outside the transaction); the team may hold at most 25.
func (s *Service) Create(ctx context.Context, in NewWebhook) (*Created, error) {
	if err := s.requireKeyOwner(ctx, in.TeamID, in.CreatedBy); err != nil {
		return nil, err
	}
	acc, err := s.Billing.Status(ctx, in.TeamID)
	if err != nil {
		return nil, fmt.Errorf("webhook account: %w", err)
	}
	if !acc.Plan.IncludesAPI() {
		return nil, errPlanRequired
	}
	secret, err := domain.NewSecret()
	if err != nil {
		return nil, err
	}
	w, err := domain.NewWebhook(id.New("wh"), in.TeamID, in.URL, in.Events, in.Source, in.CreatedBy, in.KeyID,
		in.MaxPerSecond, secret, s.Clock.Now().UTC())
	if err != nil {
		return nil, err
	}
	if _, err := s.Guard.Check(ctx, in.URL); err != nil {
		return nil, urlFault(err)
	}
	err = s.DB.Tx(ctx, func(ctx context.Context) error {
		if err := s.Repo.LockTeam(ctx, in.TeamID); err != nil {
			return err
		}
		n, err := s.Repo.CountWebhooks(ctx, in.TeamID)
		if err != nil {
			return err
		}
		if n >= domain.MaxPerTeam {
			return fault.Newf(fault.Conflict, domain.CodeWebhookLimit, "a team may have at most %d webhooks", domain.MaxPerTeam)
		}
		return s.Repo.InsertWebhook(ctx, &w)
	})
	if err != nil {
		return nil, err
	}
	s.Logger.Info("webhook created", "team_id", w.TeamID, "webhook_id", w.ID, "source", w.Source, "host", hostOf(w.URL))
	return &Created{Webhook: w, Secret: secret}, nil
}

// urlFault maps a guard refusal to the spec's code.
func urlFault(err error) error {
	var g *guard.Error
	if !errors.As(err, &g) {
		return err
	}
	switch g.Reason {
	case guard.Blocked:
		return fault.New(fault.Invalid, domain.CodeBlockedURL, "url points to a private, loopback, link-local or otherwise non-public address: "+g.Msg)
	case guard.DNSBusy:
		return &fault.Error{Kind: fault.Unavailable, Code: domain.CodeDNSBusy,
			Message: "the host name could not be resolved at once; retry in about a minute", Err: err}
	}
	return fault.New(fault.Invalid, domain.CodeInvalidURL, g.Msg)
}

func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Hostname()
	}
	return ""
}

// Webhooks lists a team's webhooks (limit+1 rows); an unknown team is 404.
func (s *Service) Webhooks(ctx context.Context, teamID string, limit, offset int) ([]domain.Webhook, error) {
	if _, err := s.Teams.Team(ctx, teamID); err != nil {
		return nil, err
	}
	return s.Repo.Webhooks(ctx, teamID, limit, offset)
}

// Webhook returns one of a team's webhooks.
func (s *Service) Webhook(ctx context.Context, teamID, webhookID string) (*domain.Webhook, error) {
	w, err := s.Repo.Webhook(ctx, teamID, webhookID)
	return w, mapNotFound(err)
}

// Delete stops delivery and deletes a webhook (any source, any plan).
// Pending deliveries go with it; their jobs then find nothing to do.
func (s *Service) Delete(ctx context.Context, teamID, webhookID string) (*domain.Webhook, error) {
	var out *domain.Webhook
	// The delete locks the webhook, then its deliveries; recording an
	// attempt locks a delivery, then its webhook. When the two deadlock and
	// Postgres picks the delete, it runs again rather than fail the request.
	err := s.DB.TxRetry(ctx, func(ctx context.Context) error {
		w, err := s.Repo.DeleteWebhook(ctx, teamID, webhookID)
		out = w
		return mapNotFound(err)
	})
	if err != nil {
		return nil, err
	}
	s.Logger.Info("webhook deleted", "team_id", teamID, "webhook_id", webhookID)
	return out, nil
}

// Rotated is a webhook with the new secret a rotation made, shown once.
type Rotated struct {
	Webhook domain.Webhook
	Secret  string
}

// RotateSecret gives a webhook a new signing secret for memberID, who must
// be a key owner. The secret it replaces keeps signing every delivery
// beside the new one for SecretOverlap (so receivers can switch without
// losing a delivery); a rotation during an overlap ends the older one.
func (s *Service) RotateSecret(ctx context.Context, teamID, webhookID, memberID string) (*Rotated, error) {
	if err := s.requireKeyOwner(ctx, teamID, memberID); err != nil {
		return nil, err
	}
	secret, err := domain.NewSecret()
	if err != nil {
		return nil, err
	}
	now := s.Clock.Now().UTC()
	out, err := s.updateWebhook(ctx, teamID, webhookID, func(w *domain.Webhook) error {
		w.Rotate(secret, now.Add(s.SecretOverlap), now)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.Logger.Info("webhook secret rotated", "team_id", teamID, "webhook_id", webhookID, "previous_valid_until", out.PreviousSecretUntil)
	return &Rotated{Webhook: *out, Secret: secret}, nil
}

// Enable turns a webhook on for memberID, who must be a key owner and
// becomes its owner; the failure count starts again.
func (s *Service) Enable(ctx context.Context, teamID, webhookID, memberID string) (*domain.Webhook, error) {
	if err := s.requireKeyOwner(ctx, teamID, memberID); err != nil {
		return nil, err
	}
	out, err := s.updateWebhook(ctx, teamID, webhookID, func(w *domain.Webhook) error {
		w.Enable(memberID, s.Clock.Now().UTC())
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.Logger.Info("webhook enabled", "team_id", teamID, "webhook_id", webhookID)
	return out, nil
}

// updateWebhook changes one of a team's webhooks through change, in a
// transaction of its own (unknown or another team's: 404).
func (s *Service) updateWebhook(ctx context.Context, teamID, webhookID string, change func(*domain.Webhook) error) (*domain.Webhook, error) {
	var out *domain.Webhook
	err := s.DB.Tx(ctx, func(ctx context.Context) error {
		w, err := s.Repo.UpdateWebhook(ctx, teamID, webhookID, change)
		out = w
		return mapNotFound(err)
	})
	return out, err
}

// TestSent tells what a test event became.
type TestSent struct {
	EventID    string
	DeliveryID string // "" when the event was skipped (team below Team Plus)
	Skipped    bool
}

// SendTest publishes webhook.test with data {"message": message} to one
// webhook only. A webhook that is off answers 409 conflict.
func (s *Service) SendTest(ctx context.Context, teamID, webhookID, message string) (*TestSent, error) {
	if strings.TrimSpace(message) == "" {
		message = "This is a test event from teamtext."
	}
	var out TestSent
	err := s.DB.Tx(ctx, func(ctx context.Context) error {
		w, err := s.Repo.LockWebhook(ctx, teamID, webhookID)
		if err != nil {
			return mapNotFound(err)
		}
		if !w.Enabled {
			return errWebhookOff
		}
		p, err := s.Log.PublishTo(ctx, events.Event{TeamID: teamID, Type: events.WebhookTest,
			Data: map[string]string{"message": message}}, w.ID)
		if err != nil {
			return err
		}
		out = TestSent{EventID: p.EventID, Skipped: p.Skipped}
		if len(p.Deliveries) == 1 {
			out.DeliveryID = p.Deliveries[0].ID
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// Attempts lists a webhook's attempts, newest first (limit+1 rows).
func (s *Service) Attempts(ctx context.Context, teamID, webhookID string, limit, offset int) ([]domain.Attempt, error) {
	if _, err := s.Repo.Webhook(ctx, teamID, webhookID); err != nil {
		return nil, mapNotFound(err)
	}
	return s.Repo.Attempts(ctx, teamID, webhookID, limit, offset)
}

// Notifications lists the e-mails recorded for a team, newest first (limit+1 rows).
func (s *Service) Notifications(ctx context.Context, teamID string, limit, offset int) ([]domain.Notification, error) {
	if _, err := s.Teams.Team(ctx, teamID); err != nil {
		return nil, err
	}
	return s.Repo.Notifications(ctx, teamID, limit, offset)
}

// OnKeyRevoked implements rosterapi.KeyRevokedListener: webhooks made with
// the key are deleted, in the revoking transaction.
func (s *Service) OnKeyRevoked(ctx context.Context, ev rosterapi.KeyRevoked) error {
	ids, err := s.Repo.DeleteByKey(ctx, ev.TeamID, ev.KeyID)
	if err != nil {
		return err
	}
	if len(ids) > 0 {
		s.Logger.Info("webhooks deleted with their key", "team_id", ev.TeamID, "key_id", ev.KeyID, "count", len(ids), "reason", ev.Reason)
	}
	return nil
}

// OnOwnerInactive implements rosterapi.OwnerInactiveListener: dashboard-made
// webhooks the member owns turn off with disabled_reason creator_inactive.
func (s *Service) OnOwnerInactive(ctx context.Context, ev rosterapi.OwnerInactive) error {
	ids, err := s.Repo.DisableDashboardOwnedBy(ctx, ev.TeamID, ev.MemberID, domain.DisabledCreatorInactive, s.Clock.Now().UTC())
	if err != nil {
		return err
	}
	if len(ids) > 0 {
		s.Logger.Info("webhooks turned off: owner inactive", "team_id", ev.TeamID, "member_id", ev.MemberID, "count", len(ids))
	}
	return nil
}

var (
	_ rosterapi.KeyRevokedListener    = (*Service)(nil)
	_ rosterapi.OwnerInactiveListener = (*Service)(nil)
)

// Deliver makes attempt a.Attempt of a delivery and records it: on
// success the webhook's failure count resets; on failure the count grows
// (turning the webhook off and e-mailing its team's key owners at 20) and
// the next attempt is scheduled after the spec's gap, or the delivery is
// abandoned after the sixth. It is idempotent: an attempt already recorded,
// a delivery that ended, or a webhook that is gone is left alone.
func (s *Service) Deliver(ctx context.Context, a domain.DeliverArgs) error {
	w, err := s.Path.Work(ctx, a.TeamID, a.DeliveryID)
	if errors.Is(err, domain.ErrNotFound) {
		return nil // deleted with its webhook
	}
	if err != nil {
		return err
	}
	if !w.WebhookExists { // stored while its webhook was being deleted
		return s.Repo.DeleteDelivery(ctx, w.TeamID, w.DeliveryID)
	}
	if !w.Due(a.Attempt) {
		return nil // recorded already, or ended
	}
	if !w.Enabled {
		return s.DB.Tx(ctx, func(ctx context.Context) error {
			return s.Repo.CancelDelivery(ctx, w.TeamID, w.DeliveryID, s.Clock.Now().UTC())
		})
	}
	if w.Queued {
		return nil // the webhook's pump sends it
	}
	if w.MaxPerSecond != nil {
		return s.enqueue(ctx, w, a.Attempt)
	}
	_, err = s.attempt(ctx, w, a.Attempt)
	return err
}

// request is the signed request of w: with the secret a rotation replaced
// too during its overlap.
func (s *Service) request(w *domain.Work) delivery.Request {
	req := delivery.Request{URL: w.URL, Event: w.EventType, DeliveryID: w.DeliveryID, Body: []byte(w.Body)}
	req.Secret, req.PreviousSecret = domain.Signers(w.Secret, w.PreviousSecret, w.PreviousUntil, s.Clock.Now())
	return req
}

// attemptRow is the attempts-log row of res (the repository sets its next
// attempt time).
func attemptRow(w *domain.Work, attempt int, res delivery.Result) *domain.Attempt {
	row := &domain.Attempt{TeamID: w.TeamID, WebhookID: w.WebhookID, DeliveryID: w.DeliveryID, EventID: w.EventID,
		Attempt: attempt, AttemptedAt: res.At.UTC(), DurationUS: res.Duration.Microseconds(), Success: res.OK()}
	if res.StatusCode != 0 {
		row.StatusCode = &res.StatusCode
	}
	if res.Err != "" {
		row.Error = &res.Err
	}
	return row
}

// recordFailure records a failed attempt in the caller's transaction (one
// statement: the delivery advances, pending with the next attempt time or
// abandoned; the webhook's failure count grows and may turn it off, which
// ends the delivery; the attempt row), then e-mails the team when the
// webhook went off and schedules the next attempt's job.
func (s *Service) recordFailure(ctx context.Context, w *domain.Work, attempt int, res delivery.Result) (bool, error) {
	now := s.Clock.Now().UTC()
	var next *time.Time
	if at, retry := domain.NextAttempt(attempt-w.RoundFrom, now); retry {
		next = &at
	}
	f, err := s.Repo.RecordFailure(ctx, attemptRow(w, attempt, res), next, now)
	if err != nil || !f.Recorded {
		return false, err // !f.Recorded: another run recorded this attempt
	}
	log := s.Logger.With("team_id", w.TeamID, "webhook_id", w.WebhookID, "delivery_id", w.DeliveryID, "attempt", attempt)
	log.Info("webhook attempt failed", "status", res.StatusCode, "err", res.Err, "next_attempt_at", f.NextAttemptAt)
	if f.Disabled {
		log.Warn("webhook turned off after consecutive failures", "failures", f.Failures)
		if err := s.notifyDisabled(ctx, w, f.Failures); err != nil {
			return false, err
		}
	}
	if f.NextAttemptAt != nil {
		_, err := s.Jobs.Insert(ctx, domain.DeliverArgs{TeamID: w.TeamID, DeliveryID: w.DeliveryID, Attempt: attempt + 1},
			&river.InsertOpts{Queue: domain.Queue, ScheduledAt: *f.NextAttemptAt})
		if err != nil {
			return false, err
		}
	}
	return f.Disabled, nil
}

// notifyDisabled e-mails the team's head coaches and team directors that
// a webhook was turned off.
func (s *Service) notifyDisabled(ctx context.Context, w *domain.Work, failures int) error {
	team, err := s.Teams.Team(ctx, w.TeamID)
	if err != nil {
		return fmt.Errorf("notify: team: %w", err)
	}
	owners, err := s.Members.KeyOwners(ctx, w.TeamID)
	if err != nil {
		return fmt.Errorf("notify: key owners: %w", err)
	}
	subject := fmt.Sprintf("%s: a webhook was turned off after %d failed deliveries", team.Name, failures)
	body := fmt.Sprintf("Hello,\n\nThe webhook %s of %s (%s) was turned off because %d delivery attempts in a row failed.\n"+
		"No events are sent to it while it is off. Once the receiving server works again, a head coach or team\n"+
		"director can turn it back on in the dashboard (Settings, Developers, Webhooks).\n\nteamtext\n",
		w.WebhookID, team.Name, hostOf(w.URL), failures)
	for _, m := range owners {
		if err := s.Mailer.Send(ctx, mail.Message{TeamID: w.TeamID, MemberID: m.ID, To: m.Email, Subject: subject, Body: body}); err != nil {
			return fmt.Errorf("notify %s: %w", m.ID, err)
		}
	}
	return nil
}
