package inbound

import "github.com/teamtext/teamtext/modules/messaging/internal/domain"

// LaneOf exposes a sender's lane to the tests.
var LaneOf = domain.InboundLane
