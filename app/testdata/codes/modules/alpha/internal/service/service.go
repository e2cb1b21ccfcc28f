package service

import (
	"example.com/alpha/alphaapi"
	"example.com/platform/fault"
)

type view struct {
	Limit string `json:"widget_limit"` // a struct tag: not a code
}

func refuse(full, exists bool) error {
	if full {
		return fault.New(fault.Conflict, "widget_limit", "too many widgets") // planted: the literal of a declared code
	}
	if exists {
		return fault.New(fault.Conflict, alphaapi.CodeWidgetExists, "the widget exists")
	}
	return fault.New(fault.Invalid, "brand_new", "a code nobody declared") // planted: an inline code
}

func label(s string) string {
	if s == "widget_exists" { // planted: the literal of a declared code, outside a call
		return "exists"
	}
	return "widget limit" // prose, not a code
}
