// Package domain is beta's rules, with a planted River import.
package domain

import "github.com/riverqueue/river"

// Opts is a planted River type in a domain.
var Opts = river.InsertOpts{}
