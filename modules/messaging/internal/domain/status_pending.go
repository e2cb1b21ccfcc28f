package domain

import "time"

// Staging of carrier status reports: a status callback only stages its
// report; filers ingest the staged reports lane by lane, in batches.
const (
	// StatusLanes is how many lanes staged statuses are spread over (a power
	// of two: the lane is a hash of the delivery's message masked by
	// StatusLanes-1). One filer at a time works a lane, so one message's
	// reports are ingested one batch at a time.
	StatusLanes = 8
	// StatusMaxAttempts is how many times a staged status may fail to be
	// ingested on its own before it is set aside (kept staged, no longer
	// taken).
	StatusMaxAttempts = 5
)

// PendingStatus is a carrier's status report staged, not ingested yet.
type PendingStatus struct {
	ID                int64 // the staging order (assigned when staged)
	DeliveryID        string
	ProviderMessageID string
	Status            string
	CarrierStatus     string
	ErrorCode         string
	ErrorMessage      string
	ReportedAt        time.Time // when the carrier says it happened; zero when it did not say
	StagedAt          time.Time
}
