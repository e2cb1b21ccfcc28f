// Package messaging owns templates, sends and estimates, approvals,
// scheduled and weekly sends, the carrier port and its adapters, deliveries
// and status ingestion, inbound texts and keywords, the inbox and analytics.
package messaging

import "go.uber.org/fx"

// Module wires messaging. It is empty until the messaging issues land; the
// shape (service, postgres, httpapi, admin, worker under internal/) follows roster.
var Module = fx.Module("messaging")
