package domain

import "example.com/alpha/alphaapi"

// Planted: widget_limit declared a second time.
const (
	CodeWidgetLimit  = "widget_limit"
	CodeWidgetExists = alphaapi.CodeWidgetExists
)

// Not a code: a carrier's numeric code.
const CodeCarrier = "21610"

// Status is another vocabulary's word, declared as a constant.
const StatusOpen = "open"
