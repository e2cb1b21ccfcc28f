package billingtest_test

import (
	"os"
	"testing"
	"time"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/billing/billingapi/billingtest"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db/dbtest"
)

var server *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &server)) }

// TestFake holds the in-memory billing to the contract suite; the
// database only runs the text AccessSQL gives.
func TestFake(t *testing.T) {
	t.Parallel()
	d := server.Migrated(t)
	billingtest.Exercise(t, func(t *testing.T, recovered billingapi.PaymentListener) billingtest.Harness {
		clk := clock.NewFake(time.Time{})
		a := billingtest.New(clk, recovered)
		return billingtest.Harness{Accounts: a, Standings: a, Clock: clk, DB: d}
	})
}
