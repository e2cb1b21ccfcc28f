package service_test

// A test may use another module's fake.
import (
	"go.uber.org/fx/fxtest"

	"github.com/teamtext/teamtext/modules/alpha/alphaapi/alphatest"
)

var _ = alphatest.Exercise

// Planted: a use case's test on fx's test helpers.
var _ = fxtest.New
