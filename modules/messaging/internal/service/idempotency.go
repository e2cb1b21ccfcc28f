package service

import "github.com/teamtext/teamtext/platform/idempotency"

// IdempotencyKeys are the send use cases' Idempotency-Key records
// (IdempotencyStore: messaging_idempotency), kept in their transactions on
// the service's clock: the keys of platform/idempotency's decorator.
func (s *Service) IdempotencyKeys() idempotency.Keys {
	return idempotency.Keys{Store: s.IdempotencyStore, Tx: s.DB, Clock: s.Clock}
}
