// Package messagingapi is the messaging module's contract for other modules
// (campaign steps send through it). It is filled in with the send use case.
package messagingapi
