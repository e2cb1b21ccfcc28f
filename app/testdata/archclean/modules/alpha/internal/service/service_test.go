package service_test

// A test may run the use cases over the real store.
import "github.com/teamtext/teamtext/modules/alpha/internal/postgres"

var _ = postgres.NewRepo
