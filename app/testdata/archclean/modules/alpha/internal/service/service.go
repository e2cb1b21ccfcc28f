// Package service is alpha's use cases: they see storage through Store.
package service

// Store is what the use cases need of storage.
type Store interface {
	Thing(id string) (string, error)
}

// Service is alpha's use cases.
type Service struct{ store Store }

// New returns the use cases over store.
func New(store Store) *Service { return &Service{store: store} }
