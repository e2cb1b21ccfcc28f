// Package check holds the few assertions the contract suites need
// (rostertest.Exercise, billingtest.Exercise...): those suites live in
// packages other modules import, which take nothing from outside the
// standard library, the contracts and the platform.
package check

import (
	"reflect"
	"testing"

	"github.com/teamtext/teamtext/platform/fault"
)

// NoError stops the test at err.
func NoError(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Equal fails the test unless got and want are deeply equal; what says
// what was compared.
func Equal(t testing.TB, got, want any, what string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %#v\nwant %#v", what, got, want)
	}
}

// Refused fails the test unless err is an error: what says what should
// have been refused.
func Refused(t testing.TB, err error, what string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
	}
}

// Fault fails the test unless err is a fault of kind with code and message.
func Fault(t testing.TB, err error, kind fault.Kind, code, message string) {
	t.Helper()
	f, ok := fault.As(err)
	if !ok {
		t.Errorf("want a %s fault (%s), got %v", code, message, err)
		return
	}
	Equal(t, []any{f.Kind, f.Code, f.Message}, []any{kind, code, message}, "the fault")
}
