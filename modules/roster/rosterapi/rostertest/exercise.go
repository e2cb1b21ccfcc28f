package rostertest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/check"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/phone"
)

// Harness is one roster under the suite: the fake, or the module on
// Postgres.
type Harness struct {
	Roster Contracts
	Seed   Seeder
	// Clock is the roster's clock: it dates opt-outs.
	Clock *clock.Fake
}

// The suite's world: two teams, and on team A a roster of every kind of
// entry an audience has to tell apart, made an hour apart from t0.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

const (
	teamA, teamB   = "team_a", "team_b"
	numberA        = "+12025550100"
	numberB        = "+13105550100"
	parentPhone    = "+12025550101" // two active guardian entries
	athletePhone   = "+12025550102"
	coachPhone     = "+12025550103"
	boardPhone     = "+12025550104"
	pendingPhone   = "+12025550105"
	blockedPhone   = "+12025550106"
	optedPhone     = "+12025550107" // an active entry whose number is opted out
	directorPhone  = "+12025550108" // a pending team director
	strangerPhone  = "+12025550199"
	groupA, groupB = "grp_a", "grp_b"
)

// world seeds the suite's world and returns team A's entries by id.
func world(t *testing.T, h Harness) map[string]rosterapi.Member {
	t.Helper()
	ctx := context.Background()
	check.NoError(t, h.Seed.AddTeam(ctx, rosterapi.Team{ID: teamA, Name: "Tigers", Code: "tigers", Number: numberA, TimeZone: "America/New_York",
		ApprovalRequired: true, JoinApprovalRequired: true, CreatedAt: t0}))
	check.NoError(t, h.Seed.AddTeam(ctx, rosterapi.Team{ID: teamB, Name: "Lions", Code: "lions", Number: numberB, TimeZone: "America/Chicago",
		Disabled: true, Locked: true, CreatedAt: t0.Add(time.Hour)}))
	check.NoError(t, h.Seed.AddGroup(ctx, teamA, groupA, "Varsity"))
	check.NoError(t, h.Seed.AddGroup(ctx, teamB, groupB, "Varsity"))
	entries := []rosterapi.Member{
		{ID: "mem_parent2", Name: "Pat (Bo's)", Phone: parentPhone, Role: rosterapi.RoleGuardian, Status: "active"},
		{ID: "mem_parent1", Name: "Pat (Ann's)", Phone: parentPhone, Role: rosterapi.RoleGuardian, Status: "active"},
		{ID: "mem_athlete", Name: "Ann", Phone: athletePhone, Email: "ann@example.com", Role: rosterapi.RoleAthlete, Status: "active"},
		{ID: "mem_head", Name: "Coach Kim", Phone: coachPhone, Role: rosterapi.RoleHeadCoach, Status: "active", DashboardLogin: true,
			CanSendBroadcasts: true},
		{ID: "mem_board", Name: "Board", Phone: boardPhone, Role: rosterapi.RoleBoardMember, Status: "active"},
		{ID: "mem_pending", Name: "New", Phone: pendingPhone, Role: rosterapi.RoleAthlete, Status: "pending"},
		{ID: "mem_blocked", Name: "Blocked", Phone: blockedPhone, Role: rosterapi.RoleOutside, Status: "active", IsBlocked: true},
		{ID: "mem_opted", Name: "Opted", Phone: optedPhone, Role: rosterapi.RoleEmergencyContact, Status: "active"},
		{ID: "mem_director", Name: "Dir", Phone: directorPhone, Role: rosterapi.RoleTeamDirector, Status: "pending", DashboardLogin: true},
	}
	byID := map[string]rosterapi.Member{}
	for i, m := range entries {
		m.TeamID, m.CreatedAt = teamA, t0.Add(time.Duration(i)*time.Hour)
		if m.ID == "mem_parent1" {
			m.CreatedAt = t0 // the same instant as mem_parent2: the id decides
		}
		check.NoError(t, h.Seed.AddMember(ctx, m))
		byID[m.ID] = m
	}
	// Team B has the parent's number too.
	check.NoError(t, h.Seed.AddMember(ctx, rosterapi.Member{ID: "mem_b_parent", TeamID: teamB, Name: "Pat", Phone: parentPhone,
		Role: rosterapi.RoleGuardian, Status: "active", CreatedAt: t0}))
	check.NoError(t, h.Seed.AddCustomField(ctx, teamA, "jersey", false))
	check.NoError(t, h.Seed.AddCustomField(ctx, teamA, "allergies", true))
	return byID
}

// utc is m with its times in UTC, as the suite writes them.
func utc(ms []rosterapi.Member) []rosterapi.Member {
	out := slices.Clone(ms)
	for i := range out {
		out[i].CreatedAt = out[i].CreatedAt.UTC()
	}
	return out
}

func ids(ms []rosterapi.Member) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

// Exercise runs the contract suite: the answers other modules rely on,
// refusals included. newHarness builds a fresh, empty roster.
func Exercise(t *testing.T, newHarness func(t *testing.T) Harness) {
	t.Helper()
	setup := func(t *testing.T) (context.Context, Harness, map[string]rosterapi.Member) {
		t.Helper()
		h := newHarness(t)
		h.Clock.Set(t0.Add(24 * time.Hour))
		return context.Background(), h, world(t, h)
	}

	t.Run("Teams", func(t *testing.T) {
		t.Parallel()
		ctx, h, _ := setup(t)
		a, err := h.Roster.Team(ctx, teamA)
		check.NoError(t, err)
		a.CreatedAt = a.CreatedAt.UTC()
		check.Equal(t, a, rosterapi.Team{ID: teamA, Name: "Tigers", Code: "tigers", Number: numberA, TimeZone: "America/New_York",
			ApprovalRequired: true, JoinApprovalRequired: true, CreatedAt: t0}, "every field of the team")
		_, err = h.Roster.Team(ctx, "team_none")
		check.Fault(t, err, fault.NotFound, fault.CodeNotFound, "team not found")

		byID, err := h.Roster.TeamsByID(ctx, []string{teamB, "team_none", teamA})
		check.NoError(t, err)
		check.Equal(t, len(byID), 2, "teams that do not exist are absent")
		check.Equal(t, []any{byID[teamB].Name, byID[teamB].Disabled, byID[teamB].Locked}, []any{"Lions", true, true}, "team B")
		none, err := h.Roster.TeamsByID(ctx, nil)
		check.NoError(t, err)
		check.Equal(t, len(none), 0, "no ids, no teams")

		byNumber, err := h.Roster.TeamByNumber(ctx, numberB)
		check.NoError(t, err)
		check.Equal(t, byNumber.ID, teamB, "the team whose number it is")
		_, err = h.Roster.TeamByNumber(ctx, strangerPhone)
		check.Fault(t, err, fault.NotFound, fault.CodeNotFound, "team not found")
		numbers, err := h.Roster.TeamsByNumbers(ctx, []string{numberA, strangerPhone, numberB})
		check.NoError(t, err)
		check.Equal(t, []any{len(numbers), numbers[numberA].ID, numbers[numberB].ID}, []any{2, teamA, teamB}, "keyed by number")

		check.Refused(t, h.Seed.AddTeam(ctx, rosterapi.Team{ID: teamA, Code: "other"}), "a second team with an id")
		check.Refused(t, h.Seed.AddTeam(ctx, rosterapi.Team{ID: "team_c", Code: "tigers"}), "a second team with a code")
		check.Refused(t, h.Seed.AddTeam(ctx, rosterapi.Team{ID: "team_c", Code: "c", Number: numberA}), "a second team with a number")
		check.NoError(t, h.Seed.AddTeam(ctx, rosterapi.Team{ID: "team_c", Code: "c"}))
		check.NoError(t, h.Seed.AddTeam(ctx, rosterapi.Team{ID: "team_d", Code: "d"})) // no number, twice
	})

	t.Run("Members", func(t *testing.T) {
		t.Parallel()
		ctx, h, w := setup(t)
		m, err := h.Roster.Member(ctx, teamA, "mem_athlete")
		check.NoError(t, err)
		check.Equal(t, utc([]rosterapi.Member{m}), []rosterapi.Member{w["mem_athlete"]}, "every field of the entry")
		_, err = h.Roster.Member(ctx, teamB, "mem_athlete")
		check.Fault(t, err, fault.NotFound, fault.CodeNotFound, "member not found")
		_, err = h.Roster.Member(ctx, teamA, "mem_none")
		check.Fault(t, err, fault.NotFound, fault.CodeNotFound, "member not found")

		owners, err := h.Roster.KeyOwners(ctx, teamA)
		check.NoError(t, err)
		check.Equal(t, ids(owners), []string{"mem_head", "mem_director"}, "head coaches and team directors, pending too, oldest first")
		owners, err = h.Roster.KeyOwners(ctx, teamB)
		check.NoError(t, err)
		check.Equal(t, len(owners), 0, "team B has none")

		check.Refused(t, h.Seed.AddMember(ctx, rosterapi.Member{ID: "mem_athlete", TeamID: teamB, Phone: strangerPhone, Role: rosterapi.RoleAthlete,
			Status: "active", CreatedAt: t0}), "a second entry with an id")
	})

	t.Run("MembersByPhone", func(t *testing.T) {
		t.Parallel()
		ctx, h, w := setup(t)
		ms, err := h.Roster.MembersByPhone(ctx, teamA, parentPhone)
		check.NoError(t, err)
		check.Equal(t, utc(ms), []rosterapi.Member{w["mem_parent1"], w["mem_parent2"]}, "oldest first; the id breaks a tie")
		ms, err = h.Roster.MembersByPhone(ctx, teamA, pendingPhone)
		check.NoError(t, err)
		check.Equal(t, ids(ms), []string{"mem_pending"}, "whatever their status")
		ms, err = h.Roster.MembersByPhone(ctx, teamA, strangerPhone)
		check.NoError(t, err)
		check.Equal(t, len(ms), 0, "a number not on the roster")

		pairs := []rosterapi.TeamPhone{{TeamID: teamA, Phone: parentPhone}, {TeamID: teamB, Phone: parentPhone},
			{TeamID: teamB, Phone: athletePhone}, {TeamID: teamA, Phone: parentPhone}, {TeamID: teamA, Phone: blockedPhone}}
		byPair, err := h.Roster.MembersByTeamPhones(ctx, pairs)
		check.NoError(t, err)
		got := map[rosterapi.TeamPhone][]string{}
		for p, ms := range byPair {
			got[p] = ids(ms)
		}
		check.Equal(t, got, map[rosterapi.TeamPhone][]string{pairs[0]: {"mem_parent1", "mem_parent2"}, pairs[1]: {"mem_b_parent"},
			pairs[4]: {"mem_blocked"}}, "each pair's entries once, oldest first; pairs with none absent")
		empty, err := h.Roster.MembersByTeamPhones(ctx, nil)
		check.NoError(t, err)
		check.Equal(t, empty != nil && len(empty) == 0, true, "no pairs: an empty map")
	})

	t.Run("CustomFieldKeys", func(t *testing.T) {
		t.Parallel()
		ctx, h, _ := setup(t)
		keys, err := h.Roster.CustomFieldKeys(ctx, teamA)
		check.NoError(t, err)
		check.Equal(t, keys, map[string]bool{"jersey": false, "allergies": true}, "each key and whether it is private")
		keys, err = h.Roster.CustomFieldKeys(ctx, teamB)
		check.NoError(t, err)
		check.Equal(t, len(keys), 0, "another team's fields are its own")
		check.Refused(t, h.Seed.AddCustomField(ctx, teamA, "jersey", true), "a second field with a key")
		check.Refused(t, h.Seed.AddCustomField(ctx, "team_none", "size", false), "a field of no team")
	})

	t.Run("Recipients", func(t *testing.T) {
		t.Parallel()
		ctx, h, w := setup(t)
		check.NoError(t, h.Roster.OptOutBySMS(ctx, teamA, optedPhone))
		check.NoError(t, h.Seed.AddMember(ctx, rosterapi.Member{ID: "mem_opted_later", TeamID: teamA, Name: "Later", Phone: optedPhone,
			Role: rosterapi.RoleAthlete, Status: "active", CreatedAt: t0.Add(20 * time.Hour)})) // added after the STOP
		recipients := func(audience, group string) []string {
			t.Helper()
			rs, err := h.Roster.Recipients(ctx, teamA, audience, group)
			check.NoError(t, err)
			out := []string{}
			for _, r := range rs {
				out = append(out, r.MemberID)
			}
			return out
		}
		check.Equal(t, recipients("all", ""), []string{"mem_parent1", "mem_parent2", "mem_athlete", "mem_head", "mem_board"},
			"active, unblocked, not opted out, oldest first")
		check.Equal(t, recipients("staff", ""), []string{"mem_head", "mem_board"}, "staff roles")
		check.Equal(t, recipients("families", ""), []string{"mem_parent1", "mem_parent2", "mem_athlete"}, "athletes and guardians")
		check.Equal(t, recipients("group", groupA), []string{}, "an empty group")
		n, err := h.Roster.JoinGroups(ctx, []rosterapi.GroupJoin{{TeamID: teamA, GroupID: groupA, Phone: parentPhone},
			{TeamID: teamA, GroupID: groupA, Phone: pendingPhone}, {TeamID: teamA, GroupID: groupA, Phone: boardPhone}})
		check.NoError(t, err)
		check.Equal(t, n, 4, "every live entry with each number")
		check.Equal(t, recipients("group", groupA), []string{"mem_parent1", "mem_parent2", "mem_board"}, "the group's active members")

		rs, err := h.Roster.Recipients(ctx, teamA, "staff", "")
		check.NoError(t, err)
		head := w["mem_head"]
		check.Equal(t, rs[0], rosterapi.Recipient{MemberID: head.ID, Phone: head.Phone, Name: head.Name, Role: head.Role},
			"a recipient's fields")

		_, err = h.Roster.Recipients(ctx, teamA, "everyone", "")
		check.Fault(t, err, fault.Invalid, fault.CodeInvalidRequest, "audience must be all, staff, families or group")
		_, err = h.Roster.Recipients(ctx, teamA, "group", "")
		check.Fault(t, err, fault.Invalid, rosterapi.CodeInvalidGroup, "audience group needs group_id")
		_, err = h.Roster.Recipients(ctx, teamA, "group", groupB)
		check.Fault(t, err, fault.Invalid, rosterapi.CodeInvalidGroup, "group_id is not a group of this team")
		_, err = h.Roster.Recipients(ctx, teamA, "group", "grp_none")
		check.Fault(t, err, fault.Invalid, rosterapi.CodeInvalidGroup, "group_id is not a group of this team")
		_, err = h.Roster.Recipients(ctx, teamA, "all", groupA)
		check.Fault(t, err, fault.Invalid, rosterapi.CodeInvalidGroup, "group_id goes with audience group only")
	})

	t.Run("GroupJoins", func(t *testing.T) {
		t.Parallel()
		ctx, h, _ := setup(t)
		for _, c := range []struct {
			team, group string
			want        bool
		}{{teamA, groupA, true}, {teamB, groupA, false}, {teamA, "grp_none", false}, {teamA, "", false}} {
			is, err := h.Roster.IsGroup(ctx, c.team, c.group)
			check.NoError(t, err)
			check.Equal(t, is, c.want, "IsGroup("+c.team+", "+c.group+")")
		}
		none, err := h.Roster.JoinGroups(ctx, nil)
		check.NoError(t, err)
		check.Equal(t, none, 0, "no joins")
		n, err := h.Roster.JoinGroups(ctx, []rosterapi.GroupJoin{
			{TeamID: teamA, GroupID: groupA, Phone: athletePhone},
			{TeamID: teamA, GroupID: groupB, Phone: coachPhone},     // another team's group: nothing
			{TeamID: teamA, GroupID: "grp_none", Phone: coachPhone}, // no such group: nothing
			{TeamID: teamA, GroupID: groupA, Phone: strangerPhone},  // not on the roster: nothing
			{TeamID: teamB, GroupID: groupB, Phone: parentPhone},
		})
		check.NoError(t, err)
		check.Equal(t, n, 2, "one membership per live entry joined")
		n, err = h.Roster.JoinGroups(ctx, []rosterapi.GroupJoin{{TeamID: teamA, GroupID: groupA, Phone: athletePhone},
			{TeamID: teamA, GroupID: groupA, Phone: coachPhone}})
		check.NoError(t, err)
		check.Equal(t, n, 1, "already a member: nothing")
		rs, err := h.Roster.Recipients(ctx, teamB, "group", groupB)
		check.NoError(t, err)
		check.Equal(t, len(rs), 1, "team B's entry joined its group")
		check.Refused(t, h.Seed.AddGroup(ctx, "team_none", "grp_c", "Varsity"), "a group of no team")
		check.Refused(t, h.Seed.AddGroup(ctx, teamA, "grp_c", "VARSITY"), "a second group with a name, in any case")
		check.Refused(t, h.Seed.AddGroup(ctx, teamA, groupB, "JV"), "a second group with an id")
	})

	t.Run("OptOuts", func(t *testing.T) {
		t.Parallel()
		ctx, h, _ := setup(t)
		check.NoError(t, h.Roster.OptOutBySMS(ctx, teamA, parentPhone))
		check.NoError(t, h.Roster.OptOutBySMS(ctx, teamA, coachPhone)) // a STOP is honoured for staff too
		check.NoError(t, h.Roster.OptOutBySMS(ctx, teamA, parentPhone))
		check.NoError(t, h.Roster.OptOutBySMS(ctx, teamA, strangerPhone)) // not on the roster: recorded all the same
		for _, p := range []phone.Number{parentPhone, coachPhone, strangerPhone} {
			opted, err := h.Roster.IsOptedOut(ctx, teamA, p)
			check.NoError(t, err)
			check.Equal(t, opted, true, string(p)+" is opted out")
		}
		opted, err := h.Roster.IsOptedOut(ctx, teamB, parentPhone)
		check.NoError(t, err)
		check.Equal(t, opted, false, "of that team only")
		statuses := func(team string, number phone.Number) []string {
			t.Helper()
			ms, err := h.Roster.MembersByPhone(ctx, team, number)
			check.NoError(t, err)
			out := []string{}
			for _, m := range ms {
				out = append(out, m.Status)
			}
			return out
		}
		check.Equal(t, statuses(teamA, parentPhone), []string{"opted_out", "opted_out"}, "every entry with the number")
		check.Equal(t, statuses(teamA, coachPhone), []string{"opted_out"}, "staff too")
		check.Equal(t, statuses(teamB, parentPhone), []string{"active"}, "another team's entry is its own")

		among, err := h.Roster.OptedOutAmong(ctx, []rosterapi.TeamPhone{{TeamID: teamA, Phone: athletePhone},
			{TeamID: teamB, Phone: parentPhone}, {TeamID: teamA, Phone: parentPhone}, {TeamID: teamA, Phone: strangerPhone}})
		check.NoError(t, err)
		slices.SortFunc(among, func(a, b rosterapi.TeamPhone) int { return strings.Compare(string(a.Phone), string(b.Phone)) })
		check.Equal(t, among, []rosterapi.TeamPhone{{TeamID: teamA, Phone: parentPhone}, {TeamID: teamA, Phone: strangerPhone}},
			"the opted-out pairs, of any teams")
		among, err = h.Roster.OptedOutAmong(ctx, nil)
		check.NoError(t, err)
		check.Equal(t, len(among), 0, "no pairs")

		was, err := h.Roster.OptInBySMS(ctx, teamA, parentPhone)
		check.NoError(t, err)
		check.Equal(t, was, true, "START reports the opt-out it ended")
		check.Equal(t, statuses(teamA, parentPhone), []string{"active", "active"}, "every entry active again")
		opted, err = h.Roster.IsOptedOut(ctx, teamA, parentPhone)
		check.NoError(t, err)
		check.Equal(t, opted, false, "no longer opted out")
		was, err = h.Roster.OptInBySMS(ctx, teamA, parentPhone)
		check.NoError(t, err)
		check.Equal(t, was, false, "a START of a number not opted out")
		was, err = h.Roster.OptInBySMS(ctx, teamA, pendingPhone)
		check.NoError(t, err)
		check.Equal(t, []any{was, statuses(teamA, pendingPhone)}, []any{false, []string{"pending"}}, "changes nothing")
	})

	t.Run("Keywords", func(t *testing.T) {
		t.Parallel()
		ctx, h, _ := setup(t)
		kw := func(word, num string) (bool, error) {
			return h.Roster.Keyword(ctx, rosterapi.KeywordText{TeamID: teamA, Phone: phone.Number(num), Keyword: word, Body: word, MessageID: "inb_" + word,
				MemberID: "mem_athlete", At: t0})
		}
		for _, c := range []struct {
			word string
			want bool
			opt  bool
			what string
		}{
			{"help", false, false, "HELP changes nothing"},
			{"stop", true, true, "STOP opts out"},
			{"stop", false, true, "a second STOP changes nothing"},
			{"help", false, true, "HELP leaves the opt-out"},
			{"start", true, false, "START opts back in"},
			{"start", false, false, "a second START changes nothing"},
		} {
			changed, err := kw(c.word, athletePhone)
			check.NoError(t, err)
			check.Equal(t, changed, c.want, c.what)
			opted, err := h.Roster.IsOptedOut(ctx, teamA, athletePhone)
			check.NoError(t, err)
			check.Equal(t, opted, c.opt, c.what+": opted out")
		}
		changed, err := kw("stop", strangerPhone)
		check.NoError(t, err)
		check.Equal(t, changed, true, "a number not on the roster opts out too")
		_, err = kw("unsubscribe", athletePhone)
		check.Refused(t, err, "a keyword the roster does not know")
	})

	t.Run("Counts", func(t *testing.T) {
		t.Parallel()
		ctx, h, _ := setup(t)
		day := t0.Add(24 * time.Hour)
		check.NoError(t, h.Seed.AddMember(ctx, rosterapi.Member{ID: "mem_day", TeamID: teamA, Name: "Day", Phone: strangerPhone,
			Role: rosterapi.RoleAthlete, Status: "active", CreatedAt: day}))
		check.NoError(t, h.Seed.AddMember(ctx, rosterapi.Member{ID: "mem_day_pending", TeamID: teamA, Name: "Day", Phone: strangerPhone,
			Role: rosterapi.RoleAthlete, Status: "pending", CreatedAt: day.Add(time.Hour)}))
		check.NoError(t, h.Seed.AddMember(ctx, rosterapi.Member{ID: "mem_day_b", TeamID: teamB, Name: "Day", Phone: strangerPhone,
			Role: rosterapi.RoleAthlete, Status: "active", CreatedAt: day}))
		h.Clock.Set(day.Add(2 * time.Hour))
		check.NoError(t, h.Roster.OptOutBySMS(ctx, teamA, boardPhone))
		check.NoError(t, h.Roster.OptOutBySMS(ctx, teamA, coachPhone))
		check.NoError(t, h.Roster.OptOutBySMS(ctx, teamB, parentPhone))
		h.Clock.Set(day.Add(24 * time.Hour)) // the next day: not in the range
		check.NoError(t, h.Roster.OptOutBySMS(ctx, teamA, athletePhone))

		count := func(from, to time.Time) []int {
			t.Helper()
			n, o, err := h.Roster.Counts(ctx, teamA, from, to)
			check.NoError(t, err)
			return []int{n, o}
		}
		check.Equal(t, count(day, day.Add(24*time.Hour)), []int{1, 2}, "entries made that day, not pending; its opt-outs")
		check.Equal(t, count(t0, day), []int{7, 0}, "the world's non-pending entries, the range half-open")
		_, err := h.Roster.OptInBySMS(ctx, teamA, boardPhone)
		check.NoError(t, err)
		check.Equal(t, count(day, day.Add(24*time.Hour)), []int{1, 1}, "a START removes the record, so it no longer counts")
	})
}
