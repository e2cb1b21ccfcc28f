package edge

import "example.com/platform/fault"

func busy() error {
	return NewError(503, "edge_busy", "busy") // planted: an inline code
}

func down(err error) error {
	return &fault.Error{Kind: fault.Internal, Code: "edge_down", Err: err} // planted: an inline code
}

func NewError(status int, code, message string) error { return nil }
