// Package service is beta's use cases, with a planted import of alpha's
// fake in code that is not a test.
package service

import "github.com/teamtext/teamtext/modules/alpha/alphaapi/alphatest"

// Things is planted: production code on a fake.
var Things = &alphatest.Things{}
