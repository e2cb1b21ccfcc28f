// Package betaapi is beta's contract.
package betaapi

import "context"

// Items reads beta items.
type Items interface {
	Item(ctx context.Context, id string) (string, error)
}
