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
		return fault.New(fault.Conflict, alphaapi.CodeWidgetLimit, "too many widgets")
	}
	return fault.New(fault.Conflict, alphaapi.CodeWidgetExists, "the widget exists")
}

func label(s string) string {
	if s == alphaapi.CodeWidgetExists {
		return "exists"
	}
	return "widget limit" // prose, not a code
}
