package inbound

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/phone"
)

// Team keywords. A team's keywords are messaging's, beside its
// HELP text, although the admin API lists them under the team like roster's
// sub-resources: what a keyword does is answer an inbound text, and that
// is filed here, in the batch's transaction, with the texts' store and the
// reply job at hand. Roster is only asked, through its ports, whether a
// group is the team's (rosterapi.GroupMembers.IsGroup), whether the sender
// is opted out (rosterapi.OptOuts) and to put the sender's entries in the
// group (GroupMembers.JoinGroups); roster knows nothing of keywords.
//
// A text is a team keyword when its whole body, trimmed of white space and
// punctuation at both ends, is one of the texted team's keywords, in any
// case (domain.KeywordWord). It is answered with "<team name>: " and the
// keyword's reply, one to one, from the number texted, like a HELP answer:
// not charged as credits, sent while the renewal is overdue, never to an
// opted-out number. If the keyword has a group and the sender's number is
// on the roster, every live entry of the team with the number joins the
// group. The text is claimed (it is no poll answer), and otherwise filed
// as any text: listed by GET /inbound-messages, announced as
// message.received, and kept in the staff inbox (its keyword is null: the
// team's own keywords are not STOP, START or HELP, and staff may want to
// see who asked).

// KeywordStore keeps a team's keywords (postgres.Repo). Reads by id answer
// domain.ErrNotFound (wrapped) for another team's id.
type KeywordStore interface {
	// TeamKeywords lists a team's keywords by keyword, limit+1 rows.
	TeamKeywords(ctx context.Context, teamID string, limit, offset int) ([]domain.TeamKeyword, error)
	CountTeamKeywords(ctx context.Context, teamID string) (int, error)
	TeamKeyword(ctx context.Context, teamID, id string) (*domain.TeamKeyword, error)
	// KeywordTaken reports whether another keyword than exceptID has word.
	KeywordTaken(ctx context.Context, teamID, word, exceptID string) (bool, error)
	// LockTeamKeywords serialises a team's keyword changes (the transaction's).
	LockTeamKeywords(ctx context.Context, teamID string) error
	InsertTeamKeyword(ctx context.Context, k *domain.TeamKeyword) error
	// UpdateTeamKeyword locks one of a team's keywords, lets change alter
	// it and writes it back (nothing when change fails).
	UpdateTeamKeyword(ctx context.Context, teamID, id string, change func(*domain.TeamKeyword) error) (*domain.TeamKeyword, error)
	DeleteTeamKeyword(ctx context.Context, teamID, id string) (bool, error)
	// MatchTeamKeywords returns the keywords among words, in one statement.
	MatchTeamKeywords(ctx context.Context, words []domain.TeamWord) ([]domain.TeamKeyword, error)
	// InsertReplies stores replies in one statement.
	InsertReplies(ctx context.Context, rps []*domain.Reply) error
}

// ManyInserter enqueues jobs in one statement, in the transaction carried
// by ctx (*jobs.Jobs).
type ManyInserter interface {
	InsertMany(ctx context.Context, params []river.InsertManyParams) error
}

// KeywordAnswerer is filing's team-keyword step (*TeamKeywords).
type KeywordAnswerer interface {
	// Answer answers the texts among ins that are a keyword of their team
	// and returns their ids; teams are the batch's, by number texted.
	Answer(ctx context.Context, teams map[string]rosterapi.Team, ins []*domain.Inbound) (map[string]bool, error)
}

// KeywordDeps are the team keywords' collaborators.
type KeywordDeps struct {
	Tx      Transactor
	Store   KeywordStore
	Jobs    ManyInserter
	Teams   rosterapi.Teams
	Groups  rosterapi.GroupMembers
	OptOuts rosterapi.OptOuts
	Clock   clock.Clock
	Log     *slog.Logger
}

// TeamKeywords keeps a team's keywords (the admin API and the dashboard's
// Settings › Keywords) and answers the texts that are one (Answer).
type TeamKeywords struct{ KeywordDeps }

var _ KeywordAnswerer = (*TeamKeywords)(nil)

// NewTeamKeywords returns the team keywords.
func NewTeamKeywords(d KeywordDeps) *TeamKeywords { return &TeamKeywords{KeywordDeps: d} }

// KeywordInput is a new keyword as given; GroupID "" is none.
type KeywordInput struct {
	Keyword, Reply, GroupID string
}

// KeywordPatch changes any of a keyword's fields; nil leaves one as it
// is, GroupID "" removes the group.
type KeywordPatch struct {
	Keyword, Reply, GroupID *string
}

var (
	errKeywordNotFound = fault.NotFoundf("keyword not found")
	errInvalidGroup    = fault.New(fault.Invalid, rosterapi.CodeInvalidGroup, "group_id is not a group of this team")
)

// Keywords lists a team's keywords by keyword, limit+1 rows; 404 for an
// unknown team.
func (s *TeamKeywords) Keywords(ctx context.Context, teamID string, limit, offset int) ([]domain.TeamKeyword, error) {
	if _, err := s.Teams.Team(ctx, teamID); err != nil {
		return nil, err
	}
	return s.Store.TeamKeywords(ctx, teamID, limit, offset)
}

// Keyword returns one of a team's keywords (404 not_found otherwise).
func (s *TeamKeywords) Keyword(ctx context.Context, teamID, id string) (*domain.TeamKeyword, error) {
	if _, err := s.Teams.Team(ctx, teamID); err != nil {
		return nil, err
	}
	k, err := s.Store.TeamKeyword(ctx, teamID, id)
	if errors.Is(err, domain.ErrNotFound) {
		return nil, errKeywordNotFound
	}
	return k, err
}

// CreateKeyword adds a keyword to a team, in one transaction. Refusals:
// 404 not_found (no such team), 400 invalid_request (a keyword that is not
// one word of letters and digits, a reserved word: STOP, START, HELP and
// their synonyms, the join keywords and the team's code; a reply empty,
// too long or not storable), 400 invalid_group (group_id not a group of
// the team), 409 conflict (the team has the keyword already, or has
// domain.KeywordLimit keywords).
func (s *TeamKeywords) CreateKeyword(ctx context.Context, teamID string, in KeywordInput) (*domain.TeamKeyword, error) {
	var out *domain.TeamKeyword
	err := s.Tx.Tx(ctx, func(ctx context.Context) error {
		team, err := s.Teams.Team(ctx, teamID)
		if err != nil {
			return err
		}
		f, err := s.check(ctx, team, in)
		if err != nil {
			return err
		}
		if err := s.Store.LockTeamKeywords(ctx, teamID); err != nil {
			return err
		}
		if err := s.unique(ctx, teamID, f.Keyword, ""); err != nil {
			return err
		}
		n, err := s.Store.CountTeamKeywords(ctx, teamID)
		if err != nil {
			return err
		}
		if n >= domain.KeywordLimit {
			return fault.Newf(fault.Conflict, fault.CodeConflict, "a team has at most %d keywords", domain.KeywordLimit)
		}
		k := domain.NewTeamKeyword(id.New("kwd"), teamID, f, s.Clock.Now().UTC())
		if err := s.Store.InsertTeamKeyword(ctx, &k); err != nil {
			return err
		}
		out = &k
		return nil
	})
	return out, err
}

// UpdateKeyword changes a team's keyword, in one transaction, with
// CreateKeyword's refusals and 404 not_found for an unknown keyword.
func (s *TeamKeywords) UpdateKeyword(ctx context.Context, teamID, id string, p KeywordPatch) (*domain.TeamKeyword, error) {
	var out *domain.TeamKeyword
	err := s.Tx.Tx(ctx, func(ctx context.Context) error {
		team, err := s.Teams.Team(ctx, teamID)
		if err != nil {
			return err
		}
		if err := s.Store.LockTeamKeywords(ctx, teamID); err != nil {
			return err
		}
		found := false
		k, err := s.Store.UpdateTeamKeyword(ctx, teamID, id, func(k *domain.TeamKeyword) error {
			found = true
			in := KeywordInput{Keyword: k.Keyword, Reply: k.Reply, GroupID: k.GroupID}
			if p.Keyword != nil {
				in.Keyword = *p.Keyword
			}
			if p.Reply != nil {
				in.Reply = *p.Reply
			}
			if p.GroupID != nil {
				in.GroupID = *p.GroupID
			}
			f, err := s.check(ctx, team, in)
			if err != nil {
				return err
			}
			if err := s.unique(ctx, teamID, f.Keyword, k.ID); err != nil {
				return err
			}
			k.Keyword, k.Reply, k.GroupID, k.UpdatedAt = f.Keyword, f.Reply, f.GroupID, s.Clock.Now().UTC()
			return nil
		})
		if !found && errors.Is(err, domain.ErrNotFound) {
			return errKeywordNotFound
		}
		if err != nil {
			return err
		}
		out = k
		return nil
	})
	return out, err
}

// DeleteKeyword removes a team's keyword (404 not_found if it has none with id).
func (s *TeamKeywords) DeleteKeyword(ctx context.Context, teamID, id string) error {
	if _, err := s.Teams.Team(ctx, teamID); err != nil {
		return err
	}
	ok, err := s.Store.DeleteTeamKeyword(ctx, teamID, id)
	if err != nil {
		return err
	}
	if !ok {
		return errKeywordNotFound
	}
	return nil
}

// check validates a keyword's fields for team; an unchanged group is
// checked again (a group deleted since is refused).
func (s *TeamKeywords) check(ctx context.Context, team rosterapi.Team, in KeywordInput) (domain.KeywordFields, error) {
	word, err := domain.ValidKeywordWord(in.Keyword, team.Code)
	if err != nil {
		return domain.KeywordFields{}, err
	}
	reply, err := domain.ValidKeywordReply(in.Reply)
	if err != nil {
		return domain.KeywordFields{}, err
	}
	if in.GroupID != "" {
		ok, err := s.Groups.IsGroup(ctx, team.ID, in.GroupID)
		if err != nil {
			return domain.KeywordFields{}, err
		}
		if !ok {
			return domain.KeywordFields{}, errInvalidGroup
		}
	}
	return domain.KeywordFields{Keyword: word, Reply: reply, GroupID: in.GroupID}, nil
}

// unique refuses a word another keyword of the team has (409 conflict).
func (s *TeamKeywords) unique(ctx context.Context, teamID, word, exceptID string) error {
	taken, err := s.Store.KeywordTaken(ctx, teamID, word, exceptID)
	if err != nil {
		return err
	}
	if taken {
		return fault.Newf(fault.Conflict, fault.CodeConflict, "the team already has the keyword %s", word)
	}
	return nil
}

// Answer answers the texts among ins (fresh, not STOP, START or HELP, not
// claimed by joining) that are a keyword of the team texted, in the
// batch's transaction, and returns their ids. Its statements are fixed
// whatever the batch's size: none when no text is one word; else one to
// find the keywords; when some match, one for opt-outs, one for the
// replies, one for their jobs, and one for the groups joined.
func (s *TeamKeywords) Answer(ctx context.Context, teams map[string]rosterapi.Team, ins []*domain.Inbound) (map[string]bool, error) {
	var words []domain.TeamWord
	for _, in := range ins {
		if w := domain.KeywordWord(in.Body); w != "" {
			words = append(words, domain.TeamWord{TeamID: in.TeamID, Word: w})
		}
	}
	if len(words) == 0 {
		return nil, nil
	}
	ks, err := s.Store.MatchTeamKeywords(ctx, words)
	if err != nil || len(ks) == 0 {
		return nil, err
	}
	byWord := make(map[domain.TeamWord]*domain.TeamKeyword, len(ks))
	for i := range ks {
		byWord[domain.TeamWord{TeamID: ks[i].TeamID, Word: ks[i].Keyword}] = &ks[i]
	}
	type match struct {
		in *domain.Inbound
		k  *domain.TeamKeyword
	}
	var matches []match
	var pairs []rosterapi.TeamPhone
	claimed := map[string]bool{}
	for _, in := range ins {
		k := byWord[domain.TeamWord{TeamID: in.TeamID, Word: domain.KeywordWord(in.Body)}]
		if k == nil {
			continue
		}
		claimed[in.ID] = true
		matches = append(matches, match{in, k})
		pairs = append(pairs, rosterapi.TeamPhone{TeamID: in.TeamID, Phone: phone.Number(in.FromPhone)})
	}
	out, err := s.OptOuts.OptedOutAmong(ctx, pairs)
	if err != nil {
		return nil, fmt.Errorf("team keywords: opt-outs: %w", err)
	}
	opted := make(map[rosterapi.TeamPhone]bool, len(out))
	for _, p := range out {
		opted[p] = true
	}
	now := s.Clock.Now().UTC()
	var replies []*domain.Reply
	var jobs []river.InsertManyParams
	var joins []rosterapi.GroupJoin
	for _, m := range matches {
		if opted[rosterapi.TeamPhone{TeamID: m.in.TeamID, Phone: phone.Number(m.in.FromPhone)}] {
			s.Log.Info("team keyword from an opted-out number: not answered", "team_id", m.in.TeamID, "keyword", m.k.Keyword,
				"from", phone.Mask(m.in.FromPhone))
			continue
		}
		rp := domain.NewKeywordReply(id.New("rpl"), m.in, m.k, teams[m.in.ToPhone].Name, now)
		replies = append(replies, rp)
		jobs = append(jobs, river.InsertManyParams{Args: ReplyArgs{TeamID: rp.TeamID, ReplyID: rp.ID}})
		if m.k.GroupID != "" && m.in.Member.ID != "" {
			joins = append(joins, rosterapi.GroupJoin{TeamID: m.in.TeamID, GroupID: m.k.GroupID, Phone: phone.Number(m.in.FromPhone)})
		}
		s.Log.Info("team keyword answered", "team_id", m.in.TeamID, "keyword", m.k.Keyword, "from", phone.Mask(m.in.FromPhone),
			"group_id", m.k.GroupID, "member", m.in.Member.ID != "")
	}
	if len(replies) == 0 {
		return claimed, nil
	}
	if err := s.Store.InsertReplies(ctx, replies); err != nil {
		return nil, err
	}
	if err := s.Jobs.InsertMany(ctx, jobs); err != nil {
		return nil, fmt.Errorf("team keywords: reply jobs: %w", err)
	}
	if len(joins) > 0 {
		if _, err := s.Groups.JoinGroups(ctx, joins); err != nil {
			return nil, fmt.Errorf("team keywords: groups: %w", err)
		}
	}
	return claimed, nil
}

// teamKeywords is the team-keyword step (see route.go): the texts that are
// a keyword of their team, answered by Deps.TeamKeywords (none without one).
func (s *Service) teamKeywords(ctx context.Context, teams map[string]rosterapi.Team, ins []*domain.Inbound) (map[string]bool, error) {
	if s.TeamKeywords == nil {
		return nil, nil
	}
	return s.TeamKeywords.Answer(ctx, teams, ins)
}
