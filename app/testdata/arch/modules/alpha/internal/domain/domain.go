// Package domain is alpha's rules, with a planted net/http import.
package domain

import "net/http"

// Status is a planted HTTP status in a domain.
const Status = http.StatusOK
