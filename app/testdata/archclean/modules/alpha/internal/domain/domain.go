// Package domain is alpha's pure rules.
package domain

import "strings"

// Valid tells a valid name.
func Valid(s string) bool { return strings.TrimSpace(s) != "" }
