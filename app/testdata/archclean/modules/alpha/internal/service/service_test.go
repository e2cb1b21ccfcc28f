package service_test

// A test may run the use cases over the real store, and on another
// module's fake.
import (
	"github.com/teamtext/teamtext/modules/alpha/internal/postgres"
	"github.com/teamtext/teamtext/modules/beta/betaapi/betatest"
)

var (
	_ = postgres.NewRepo
	_ = betatest.Items{}
)
