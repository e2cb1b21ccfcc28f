// Package domain holds messaging's rules as pure functions: what a send
// request may contain, what each recipient receives, segment counting,
// merge tags, and the weekly-series arithmetic. No I/O.
package domain

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/platform/fault"
)

// The error codes of messaging's rules (spec §7) under the names its code
// uses; each is declared once, in messagingapi or, for billing's refusals,
// in billingapi.
const (
	CodeInvalidScheduledFor  = messagingapi.CodeInvalidScheduledFor
	CodeInvalidRepeat        = messagingapi.CodeInvalidRepeat
	CodeMergeTagsUnsupported = messagingapi.CodeMergeTagsUnsupported
	CodePrivateField         = messagingapi.CodePrivateField
	CodeUrgentNotAllowed     = messagingapi.CodeUrgentNotAllowed
	CodeTemplateExists       = messagingapi.CodeTemplateExists
	CodeTemplateLimit        = messagingapi.CodeTemplateLimit
	CodeTemplateProtected    = messagingapi.CodeTemplateProtected
	CodeScheduledLimit       = messagingapi.CodeScheduledLimit
	CodeNoSender             = messagingapi.CodeNoSender
	CodePaymentRequired      = billingapi.CodePaymentRequired
	CodeTrialLimit           = billingapi.CodeTrialLimit
)

// Message statuses (messagingapi.MessageStatus's, as the strings a
// Message holds).
const (
	StatusPendingApproval = string(messagingapi.MessagePendingApproval)
	StatusQueued          = string(messagingapi.MessageQueued)
	StatusSent            = string(messagingapi.MessageSent)     // every delivery handed to the carrier
	StatusRejected        = string(messagingapi.MessageRejected) // approval rejected: never sent
	StatusExpired         = string(messagingapi.MessageExpired)  // approval not given in time: never sent
)

// Delivery statuses. queued and sent are on the way; the rest are final.
const (
	DeliveryQueued      = "queued"
	DeliverySent        = "sent"
	DeliveryDelivered   = "delivered"
	DeliveryFailed      = "failed"
	DeliveryUnconfirmed = "delivery_unconfirmed"
)

// DeliveryStatuses are the delivery statuses, in the order a text moves.
var DeliveryStatuses = []string{DeliveryQueued, DeliverySent, DeliveryDelivered, DeliveryFailed, DeliveryUnconfirmed}

// DeliveryStatus reports whether s is a delivery status.
func DeliveryStatus(s string) bool {
	switch s {
	case DeliveryQueued, DeliverySent, DeliveryDelivered, DeliveryFailed, DeliveryUnconfirmed:
		return true
	}
	return false
}

// IsFinal reports whether a delivery status is final.
func IsFinal(status string) bool {
	return status == DeliveryDelivered || status == DeliveryFailed || status == DeliveryUnconfirmed
}

// Template message types. urgent_alert templates are made in the dashboard only.
const (
	TypeStandard     = "standard"
	TypeReminder     = "reminder"
	TypeAnnouncement = "announcement"
	TypeUrgentAlert  = "urgent_alert"
)

// ValidMessageType checks a template's type; urgent only when allowed (dashboard).
func ValidMessageType(t string, urgentAllowed bool) (string, error) {
	switch t {
	case "":
		return TypeStandard, nil
	case TypeStandard, TypeReminder, TypeAnnouncement:
		return t, nil
	case TypeUrgentAlert:
		if urgentAllowed {
			return t, nil
		}
		return "", fault.New(fault.Invalid, CodeUrgentNotAllowed, "urgent-alert templates can be created and changed only in the dashboard")
	}
	return "", fault.Invalidf("message_type must be standard, reminder or announcement")
}

// Limits.
const (
	MaxTextRunes      = 1200 // of the sender's text, before prefix and opt-out line
	TemplateLimit     = 200
	ScheduledLimit    = 100 // pending scheduled messages per team (scheduled_limit_reached)
	ApprovalExpiry    = 7 * 24 * time.Hour
	ScheduleMinAhead  = time.Minute
	ScheduleMaxAhead  = 366 * 24 * time.Hour // "1 year": 366 days, so a leap year's same date is allowed
	RepeatUntilMaxDay = 366
)

// OptOutLine ends every broadcast (CTIA: say how to stop).
const OptOutLine = "Reply STOP to opt out."

// Prefix is the team prefix every broadcast starts with: "<team name>: ".
func Prefix(teamName string) string { return teamName + ": " }

// Render returns exactly what each recipient receives.
func Render(teamName, text string) string {
	return Prefix(teamName) + text + "\n" + OptOutLine
}

// ValidText checks the sender's text.
func ValidText(text string) (string, error) {
	if strings.TrimSpace(text) == "" {
		return "", fault.Invalidf("text must not be empty")
	}
	if utf8.RuneCountInString(text) > MaxTextRunes {
		return "", fault.Invalidf("text must be at most %d characters", MaxTextRunes)
	}
	return text, nil
}

// CheckMergeTags refuses texts with merge tags: private_field when a tag
// names a private custom field, merge_tags_unsupported otherwise.
// fields maps custom field keys to whether they are private.
func CheckMergeTags(text string, fields map[string]bool) error {
	tags := FindTags(text)
	if len(tags) == 0 {
		return nil
	}
	for _, t := range tags {
		if private, ok := fields[strings.ToLower(t.Name)]; ok && private {
			return fault.Newf(fault.Invalid, CodePrivateField, "{%s} names a private field; merge tags are not supported through the API", t.Name)
		}
	}
	return fault.Newf(fault.Invalid, CodeMergeTagsUnsupported, "merge tags such as {%s} work only from the dashboard", tags[0].Name)
}

// CheckScheduledFor checks a scheduled time: from 1 minute to 1 year ahead.
func CheckScheduledFor(at, now time.Time) error {
	if at.Before(now.Add(ScheduleMinAhead)) || at.After(now.Add(ScheduleMaxAhead)) {
		return fault.New(fault.Invalid, CodeInvalidScheduledFor, "scheduled_for must be from 1 minute to 1 year ahead")
	}
	return nil
}

// ParseScheduledFor parses an ISO 8601 timestamp that carries an offset.
func ParseScheduledFor(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fault.New(fault.Invalid, CodeInvalidScheduledFor, "scheduled_for must be an ISO 8601 timestamp with a timezone offset, e.g. 2026-05-01T17:30:00-04:00")
	}
	return t, nil
}

// ParseUntil parses repeat.until, a date in the team's time zone at most a
// year ahead (of today there), and not before the first send.
func ParseUntil(s string, first, now time.Time, loc *time.Location) (time.Time, error) {
	d, err := time.ParseInLocation("2006-01-02", s, loc)
	if err != nil {
		return time.Time{}, fault.New(fault.Invalid, CodeInvalidRepeat, "repeat.until must be a date (YYYY-MM-DD) in the team's time zone")
	}
	today := now.In(loc)
	limit := time.Date(today.Year(), today.Month(), today.Day()+RepeatUntilMaxDay, 0, 0, 0, 0, loc)
	firstDay := first.In(loc)
	firstDate := time.Date(firstDay.Year(), firstDay.Month(), firstDay.Day(), 0, 0, 0, 0, loc)
	if d.After(limit) || d.Before(firstDate) {
		return time.Time{}, fault.New(fault.Invalid, CodeInvalidRepeat, "repeat.until must be on or after the first send and at most a year ahead")
	}
	return d, nil
}

// NextWeek returns the same local wall-clock time seven days later in loc,
// so a weekly send keeps its local time across DST changes. If that local
// time does not exist (it falls in the spring-forward gap), the send moves
// to just after the gap (02:30 becomes 03:30), never before it.
func NextWeek(t time.Time, loc *time.Location) time.Time {
	l := t.In(loc)
	next := time.Date(l.Year(), l.Month(), l.Day()+7, l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), loc)
	if n := next.In(loc); n.Hour() != l.Hour() || n.Minute() != l.Minute() {
		// Go resolved the missing time backwards; the gap is the zone's offset change.
		_, before := next.Zone()
		_, after := next.Add(3 * time.Hour).Zone()
		if gap := time.Duration(after-before) * time.Second; gap > 0 {
			next = next.Add(gap)
		}
	}
	return next
}

// WithinUntil reports whether t falls, in loc, on or before the calendar
// date until. until is a date, not an instant: its year, month and day are
// used as they are (a date column reads back as UTC midnight, which must
// not be shifted into loc).
func WithinUntil(t, until time.Time, loc *time.Location) bool {
	l := t.In(loc)
	y, m, d := until.Date()
	return !time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC).After(time.Date(y, m, d, 0, 0, 0, 0, time.UTC))
}
