// Package beta wires beta: its root package may import fx.
package beta

import (
	"go.uber.org/fx"

	"github.com/teamtext/teamtext/modules/beta/internal/service"
)

// Module is beta's wiring.
var Module = fx.Module("beta", fx.Provide(service.New))
