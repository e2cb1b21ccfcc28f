package service_test

// A test may use another module's fake.
import "github.com/teamtext/teamtext/modules/alpha/alphaapi/alphatest"

var _ = alphatest.Exercise
