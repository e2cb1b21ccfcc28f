// Package campaigns owns drip campaigns and their steps, and runs each step
// through messaging's contract.
package campaigns

import "go.uber.org/fx"

// Module wires campaigns. It is empty until the campaigns issue lands.
var Module = fx.Module("campaigns")
