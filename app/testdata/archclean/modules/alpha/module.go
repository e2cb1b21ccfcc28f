// Package alpha wires alpha: its root package may reach internal/postgres
// to hand the repository to the service as its store, and import fx.
package alpha

import (
	"go.uber.org/fx"

	"github.com/teamtext/teamtext/modules/alpha/internal/postgres"
	"github.com/teamtext/teamtext/modules/alpha/internal/service"
)

// New wires the service to its store.
func New() *service.Service { return service.New(postgres.NewRepo()) }

// Module is alpha's wiring.
var Module = fx.Module("alpha", fx.Provide(New))
