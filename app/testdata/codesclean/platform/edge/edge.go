package edge

import "example.com/platform/fault"

// CodeEdgeBusy is the edge's own code.
const CodeEdgeBusy = "edge_busy"

func busy() error {
	return NewError(503, CodeEdgeBusy, "busy")
}

func down(err error) error {
	return &fault.Error{Kind: fault.Internal, Code: fault.CodeServerError, Err: err}
}

func NewError(status int, code, message string) error { return nil }
