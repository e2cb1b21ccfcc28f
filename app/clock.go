package app

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// Now is the clock reading the admin API answers.
type Now struct {
	Now time.Time `json:"now" doc:"The service's current time (RFC 3339)."`
}

// registerClock adds GET /clock and POST /clock/advance to the admin API.
// Advancing needs CLOCK=test (409 conflict otherwise).
func registerClock(adm httpapi.Admin, clk clock.Clock, test *clock.Test) {
	tags := []string{"Clock"}
	httpapi.Register(adm.API, huma.Operation{
		OperationID: "admin-get-clock", Method: http.MethodGet, Path: "/clock", Tags: tags,
		Summary: "Read the clock", Description: "The time schedules, retries, limits and expiries follow.",
	}, func(ctx context.Context, _ *struct{}) (*httpapi.DataOutput[Now], error) {
		if test != nil { // always a fresh reading, never the cache
			off, err := test.Offset(ctx)
			if err != nil {
				return nil, err
			}
			return httpapi.Data(Now{Now: time.Now().Add(off).UTC()}), nil
		}
		return httpapi.Data(Now{Now: clk.Now().UTC()}), nil
	})
	httpapi.Register(adm.API, huma.Operation{
		OperationID: "admin-advance-clock", Method: http.MethodPost, Path: "/clock/advance", Tags: tags,
		Summary:     "Advance the test clock",
		Description: "Adds seconds to the shared offset (CLOCK=test only; every node sees it). 409 conflict with the real clock.",
	}, func(ctx context.Context, in *struct {
		Body struct {
			Seconds float64 `json:"seconds" minimum:"0" maximum:"63072000" doc:"Seconds to add (up to two years)."`
		}
	}) (*httpapi.DataOutput[Now], error) {
		if test == nil {
			return nil, fault.New(fault.Conflict, fault.CodeConflict, "the clock is real (CLOCK=real); start the service with CLOCK=test to advance it")
		}
		now, err := test.Advance(ctx, time.Duration(in.Body.Seconds*float64(time.Second)))
		if err != nil {
			return nil, err
		}
		return httpapi.Data(Now{Now: now.UTC()}), nil
	}, http.StatusConflict)
}
