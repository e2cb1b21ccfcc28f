package harness

import "context"

// Stack is a running `teamtext serve` on a Postgres of its own: what the
// e2e suite and the load generator start.
type Stack struct {
	PG  *Postgres
	Bin string // the built binary, for more services on the same code
	Svc *Service
}

// Up starts Postgres, builds teamtext (without -race), migrates the
// database and starts `teamtext serve` with env (Start), telling progress
// each step (nil: nobody). On failure it stops what it started.
func Up(ctx context.Context, progress func(step string), env ...string) (s *Stack, err error) {
	say := func(step string) {
		if progress != nil {
			progress(step)
		}
	}
	s = &Stack{}
	say("starting postgres…")
	if s.PG, err = StartPostgres(ctx); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			s.PG.Stop()
		}
	}()
	say("building teamtext (no -race)…")
	if s.Bin, err = BuildBinary(ctx, false); err != nil {
		return nil, err
	}
	say("migrating…")
	if err = Migrate(ctx, s.Bin, s.PG.URL); err != nil {
		return nil, err
	}
	say("starting teamtext serve…")
	if s.Svc, err = Start(ctx, s.Bin, s.PG.URL, env...); err != nil {
		return nil, err
	}
	return s, nil
}

// Down stops the service, then Postgres.
func (s *Stack) Down() error {
	err := s.Svc.Stop()
	s.PG.Stop()
	return err
}
