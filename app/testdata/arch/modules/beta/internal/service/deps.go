package service

import "go.uber.org/fx"

// Deps is planted: a use case's collaborators filled by fx.
type Deps struct {
	fx.In
}

// New returns the use cases.
func New(Deps) {}
