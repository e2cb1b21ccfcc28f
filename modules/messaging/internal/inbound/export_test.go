package inbound

// LaneOf exposes a sender's lane to the tests.
var LaneOf = laneOf
