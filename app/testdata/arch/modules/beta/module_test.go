package beta

// A test of the wiring may use fx's test helpers.
import "go.uber.org/fx/fxtest"

var _ = fxtest.New
