package domain

import "example.com/alpha/alphaapi"

const (
	CodeWidgetLimit  = alphaapi.CodeWidgetLimit
	CodeWidgetExists = alphaapi.CodeWidgetExists
)

// Not a code: a carrier's numeric code.
const CodeCarrier = "21610"

// Status is another vocabulary's word, declared as a constant.
const StatusOpen = "open"
