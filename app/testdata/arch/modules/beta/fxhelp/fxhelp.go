// Package fxhelp is planted: a package below the module's root that
// imports fx.
package fxhelp

import "go.uber.org/fx"

// Options is planted.
var Options = fx.Options()
