package outbound

import (
	"context"
	"errors"
	"fmt"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
)

// NumberInput is a sending number's fields as the admin API gives them;
// nil fields are left as they are (on create: the defaults).
type NumberInput struct {
	Number     *string
	Kind       *string
	Throughput *float64
	// CarrierAccountID moves the number to another carrier account (an
	// unknown or deleted one is 400 invalid_request); new texts from it
	// go through that account within accounts.CacheTTL on every node.
	CarrierAccountID *string
}

// Numbers lists a team's sending numbers, its primary (the team's number)
// first.
func (s *Service) Numbers(ctx context.Context, teamID string) ([]Number, error) {
	var out []Number
	err := s.DB.Tx(ctx, func(ctx context.Context) error {
		team, err := s.Teams.Team(ctx, teamID)
		if err != nil {
			return err
		}
		out, err = s.teamNumbers(ctx, team, true)
		return err
	})
	return out, err
}

// Number returns one of a team's sending numbers.
func (s *Service) Number(ctx context.Context, teamID, numberID string) (Number, error) {
	if _, err := s.Numbers(ctx, teamID); err != nil { // the team exists; its primary is written
		return Number{}, err
	}
	n, err := s.Store.Number(ctx, teamID, numberID)
	if err != nil {
		return Number{}, mapNotFound(err, errNumberNotFound)
	}
	return s.withPace([]Number{n})[0], nil
}

// teamNumbers returns the team's numbers. The row of its primary is
// written the first time it is needed when write is true; otherwise an
// unsaved primary stands in for it.
func (s *Service) teamNumbers(ctx context.Context, team rosterapi.Team, write bool) ([]Number, error) {
	ns, err := s.Store.Numbers(ctx, team.ID)
	if err != nil {
		return nil, err
	}
	if team.Number == "" || (len(ns) > 0 && ns[0].Primary) {
		return s.withPace(ns), nil
	}
	now := s.Clock.Now().UTC()
	p := Number{ID: id.New("num"), TeamID: team.ID, Number: string(team.Number), Kind: domain.KindLongCode, Primary: true,
		CreatedAt: team.CreatedAt.UTC(), UpdatedAt: now}
	if !write {
		return s.withPace(append([]Number{p}, ns...)), nil
	}
	err = s.Store.InsertNumber(ctx, p)
	if errors.Is(err, ErrNumberTaken) {
		// A number the team's number was added to another team as: that
		// team sends from it; this one has nothing to send from.
		return s.withPace(ns), nil
	}
	if err != nil {
		return nil, err
	}
	return s.withPace(append([]Number{p}, ns...)), nil
}

// AddNumber adds a sending number to a team (409 conflict if any team
// already has it, as its own number or an added one).
func (s *Service) AddNumber(ctx context.Context, teamID string, in NumberInput) (Number, error) {
	var out Number
	err := s.DB.Tx(ctx, func(ctx context.Context) error {
		team, err := s.Teams.Team(ctx, teamID)
		if err != nil {
			return err
		}
		if _, err := s.teamNumbers(ctx, team, true); err != nil {
			return err
		}
		if in.Number == nil {
			return fault.New(fault.Invalid, fault.CodeInvalidPhone, "number is required")
		}
		n := Number{ID: id.New("num"), TeamID: teamID}
		if err := s.setFields(ctx, &n, in); err != nil {
			return err
		}
		if err := s.checkFree(ctx, n.Number); err != nil {
			return err
		}
		n.CreatedAt = s.Clock.Now().UTC()
		n.UpdatedAt = n.CreatedAt
		if err := s.Store.InsertNumber(ctx, n); err != nil {
			if errors.Is(err, ErrNumberTaken) {
				return errNumberTaken
			}
			return err
		}
		out = s.withPace([]Number{n})[0]
		return nil
	})
	return out, err
}

var errNumberTaken = fault.New(fault.Conflict, fault.CodeConflict, "that number already sends for a team (as its own number or an added one)")

// checkFree refuses a number that is some team's own number in the roster.
func (s *Service) checkFree(ctx context.Context, value string) error {
	_, err := s.Lookup.TeamByNumber(ctx, value)
	if f, ok := fault.As(err); ok && f.Kind == fault.NotFound {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check number: %w", err)
	}
	return errNumberTaken
}

// setFields validates and applies in's fields to n.
func (s *Service) setFields(ctx context.Context, n *Number, in NumberInput) error {
	if in.Kind != nil || n.Kind == "" {
		k, err := domain.ParseNumberKind(deref(in.Kind))
		if err != nil {
			return err
		}
		n.Kind = k
	}
	if in.Number != nil {
		v, err := domain.ParseSendingNumber(n.Kind, *in.Number)
		if err != nil {
			return err
		}
		n.Number = v
	} else if _, err := domain.ParseSendingNumber(n.Kind, n.Number); err != nil {
		return err // a kind that does not fit the number it has
	}
	if in.Throughput != nil {
		p, err := domain.ParsePace(*in.Throughput)
		if err != nil {
			return err
		}
		v := float64(p)
		n.Throughput = &v
	}
	if in.CarrierAccountID != nil {
		if s.Accounts == nil {
			return fault.Invalidf("carrier_account_id: carrier accounts are not available")
		}
		if err := s.Accounts.Usable(ctx, *in.CarrierAccountID); err != nil {
			return err
		}
		n.CarrierAccountID = *in.CarrierAccountID
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// UpdateNumber changes a sending number's kind, throughput or number. New
// throughput paces texts planned from now on. The primary's number is the
// team's own and cannot change here; another number can while it has
// nothing planned.
func (s *Service) UpdateNumber(ctx context.Context, teamID, numberID string, in NumberInput) (Number, error) {
	var out Number
	err := s.DB.Tx(ctx, func(ctx context.Context) error {
		if _, err := s.Store.Number(ctx, teamID, numberID); err != nil {
			return mapNotFound(err, errNumberNotFound)
		}
		ns, err := s.Store.LockNumbers(ctx, []string{numberID})
		if err != nil {
			return err
		}
		n := ns[0]
		if in.Number != nil {
			v, err := domain.ParseSendingNumber(kindOf(n, in), *in.Number)
			if err != nil {
				return err
			}
			if v != n.Number {
				if n.Primary {
					return fault.New(fault.Conflict, fault.CodeConflict, "the primary number is the team's own number; it cannot be changed here")
				}
				if n.Backlog > 0 {
					return fault.Newf(fault.Conflict, fault.CodeConflict, "the number has %d segments planned; change it once they are handed over", n.Backlog)
				}
				if err := s.checkFree(ctx, v); err != nil {
					return err
				}
			}
		}
		if err := s.setFields(ctx, &n, in); err != nil {
			return err
		}
		n.UpdatedAt = s.Clock.Now().UTC()
		if err := s.Store.UpdateNumber(ctx, n); err != nil {
			if errors.Is(err, ErrNumberTaken) {
				return errNumberTaken
			}
			return err
		}
		out = s.withPace([]Number{n})[0]
		return nil
	})
	return out, err
}

func kindOf(n Number, in NumberInput) domain.NumberKind {
	if in.Kind != nil {
		if k, err := domain.ParseNumberKind(*in.Kind); err == nil {
			return k
		}
	}
	return n.Kind
}

// RemoveNumber removes a sending number. The primary cannot be removed (it
// is the team's own number), nor a number with texts still planned.
func (s *Service) RemoveNumber(ctx context.Context, teamID, numberID string) error {
	return s.DB.Tx(ctx, func(ctx context.Context) error {
		if _, err := s.Store.Number(ctx, teamID, numberID); err != nil {
			return mapNotFound(err, errNumberNotFound)
		}
		ns, err := s.Store.LockNumbers(ctx, []string{numberID})
		if err != nil {
			return err
		}
		switch n := ns[0]; {
		case n.Primary:
			return fault.New(fault.Conflict, fault.CodeConflict, "the primary number is the team's own number; it cannot be removed")
		case n.Backlog > 0:
			return fault.Newf(fault.Conflict, fault.CodeConflict, "the number has %d segments planned; remove it once they are handed over", n.Backlog)
		}
		return s.Store.DeleteNumber(ctx, teamID, numberID)
	})
}

// TeamForNumber finds the team a number sends for (an added number, or a
// team's own number): inbound texts to any of a team's numbers reach it.
// It answers a 404 fault when no team has it.
func (s *Service) TeamForNumber(ctx context.Context, value string) (rosterapi.Team, error) {
	n, err := s.Store.NumberByValue(ctx, value)
	if err == nil {
		return s.Teams.Team(ctx, n.TeamID)
	}
	if !errors.Is(err, ErrNotFound) {
		return rosterapi.Team{}, err
	}
	return s.Lookup.TeamByNumber(ctx, value)
}

// TeamsForNumbers is TeamForNumber for many numbers in three statements
// at most: the numbers that are absent from the map have no team.
func (s *Service) TeamsForNumbers(ctx context.Context, values []string) (map[string]rosterapi.Team, error) {
	out := map[string]rosterapi.Team{}
	if len(values) == 0 {
		return out, nil
	}
	ns, err := s.Store.NumbersByValue(ctx, values)
	if err != nil {
		return nil, err
	}
	byNumber := make(map[string]string, len(ns))
	ids := make([]string, 0, len(ns))
	for _, n := range ns {
		byNumber[n.Number] = n.TeamID
		ids = append(ids, n.TeamID)
	}
	if len(ids) > 0 {
		teams, err := s.Teams.TeamsByID(ctx, ids)
		if err != nil {
			return nil, err
		}
		for number, teamID := range byNumber {
			if t, ok := teams[teamID]; ok {
				out[number] = t
			}
		}
	}
	var rest []string
	for _, v := range values {
		if _, ok := byNumber[v]; !ok {
			rest = append(rest, v)
		}
	}
	if len(rest) == 0 {
		return out, nil
	}
	own, err := s.Lookup.TeamsByNumbers(ctx, rest)
	if err != nil {
		return nil, err
	}
	for number, t := range own {
		out[number] = t
	}
	return out, nil
}
