package service_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
)

var t0 = time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)

func newService(t *testing.T) (*service.Service, *memStore, *clock.Fake) {
	t.Helper()
	store, clk := newMemStore(), clock.NewFake(t0)
	return service.New(service.Deps{DB: memTx{store}, TemplateStore: store, ScheduledStore: store, MessageStore: store, Clock: clk}), store, clk
}

// requireCode asserts err is a fault of kind with code.
func requireCode(t *testing.T, err error, kind fault.Kind, code string) *fault.Error {
	t.Helper()
	f, ok := fault.As(err)
	require.True(t, ok, "want a %s fault, got %v", code, err)
	require.Equal(t, code, f.Code, f.Message)
	require.Equal(t, kind, f.Kind)
	return f
}

func TestCreateTemplate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, store, clk := newService(t)

	tpl, restored, err := svc.CreateTemplate(ctx, "team_1", "Practice", "See you at 5", "", false)
	require.NoError(t, err)
	require.False(t, restored)
	require.True(t, strings.HasPrefix(tpl.ID, "tpl_"), tpl.ID)
	require.Equal(t, domain.Template{ID: tpl.ID, TeamID: "team_1", Name: "Practice", Body: "See you at 5", MessageType: domain.TypeStandard,
		CreatedAt: t0, UpdatedAt: t0}, *tpl)
	require.Equal(t, *tpl, store.templates[tpl.ID], "stored as returned")
	require.Equal(t, []string{"team_1"}, store.locks, "the team's templates lock is taken")

	f := requireCode(t, second(svc.CreateTemplate(ctx, "team_1", "PRACTICE", "b", "", false)), fault.Conflict, domain.CodeTemplateExists)
	require.Equal(t, tpl.ID, f.Fields["existing_template_id"], "names are compared without case")
	_, _, err = svc.CreateTemplate(ctx, "team_2", "Practice", "b", "", false)
	require.NoError(t, err, "another team's names are its own")

	requireCode(t, second(svc.CreateTemplate(ctx, "team_1", "Alert", "b", domain.TypeUrgentAlert, false)), fault.Invalid, domain.CodeUrgentNotAllowed)
	urgent, _, err := svc.CreateTemplate(ctx, "team_1", "Alert", "b", domain.TypeUrgentAlert, true)
	require.NoError(t, err, "the dashboard makes urgent-alert templates")
	require.Equal(t, domain.TypeUrgentAlert, urgent.MessageType)

	clk.Advance(time.Hour)
	require.NoError(t, svc.DeleteTemplate(ctx, "team_1", tpl.ID, false))
	clk.Advance(time.Hour)
	back, restored, err := svc.CreateTemplate(ctx, "team_1", "practice", "Moved to 6", domain.TypeReminder, false)
	require.NoError(t, err)
	require.True(t, restored, "a deleted template's name restores it")
	require.Equal(t, domain.Template{ID: tpl.ID, TeamID: "team_1", Name: "practice", Body: "Moved to 6", MessageType: domain.TypeReminder,
		CreatedAt: t0, UpdatedAt: t0.Add(2 * time.Hour)}, *back)
	require.Equal(t, *back, store.templates[tpl.ID])
}

// second and errOf are the error of a use case's results.
func second[A, B any](_ A, _ B, err error) error { return err }

func errOf[A any](_ A, err error) error { return err }

func TestCreateTemplateLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, store, _ := newService(t)
	deleted := t0
	for i := range domain.TemplateLimit {
		store.templates["tpl_"+strconv.Itoa(i)] = domain.Template{ID: "tpl_" + strconv.Itoa(i), TeamID: "team_1", Name: "T" + strconv.Itoa(i)}
	}
	store.templates["tpl_gone"] = domain.Template{ID: "tpl_gone", TeamID: "team_1", Name: "Gone", DeletedAt: &deleted}
	before, _ := store.snapshot()

	requireCode(t, second(svc.CreateTemplate(ctx, "team_1", "New", "b", "", false)), fault.Conflict, domain.CodeTemplateLimit)
	requireCode(t, second(svc.CreateTemplate(ctx, "team_1", "Gone", "b", "", false)), fault.Conflict, domain.CodeTemplateLimit)
	require.Equal(t, before, store.templates, "a refused create stores nothing, a restore included")

	require.NoError(t, svc.DeleteTemplate(ctx, "team_1", "tpl_0", false))
	_, _, err := svc.CreateTemplate(ctx, "team_1", "New", "b", "", false)
	require.NoError(t, err, "room again after a delete")
}

func TestChangeTemplate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, store, clk := newService(t)
	deleted := t0
	store.templates["tpl_a"] = domain.Template{ID: "tpl_a", TeamID: "team_1", Name: "Practice", Body: "b", MessageType: domain.TypeStandard, CreatedAt: t0, UpdatedAt: t0}
	store.templates["tpl_b"] = domain.Template{ID: "tpl_b", TeamID: "team_1", Name: "Game", Body: "g", MessageType: domain.TypeStandard}
	store.templates["tpl_old"] = domain.Template{ID: "tpl_old", TeamID: "team_1", Name: "Meet", Body: "m", MessageType: domain.TypeStandard, DeletedAt: &deleted}
	store.templates["tpl_u"] = domain.Template{ID: "tpl_u", TeamID: "team_1", Name: "Alert", Body: "u", MessageType: domain.TypeUrgentAlert}
	s := func(v string) *string { return &v }

	requireCode(t, errOf(svc.ChangeTemplate(ctx, "team_2", "tpl_a", service.TemplateChange{Body: s("x")})), fault.NotFound, fault.CodeNotFound)
	requireCode(t, errOf(svc.ChangeTemplate(ctx, "team_1", "tpl_old", service.TemplateChange{Body: s("x")})), fault.NotFound, fault.CodeNotFound)
	requireCode(t, errOf(svc.ChangeTemplate(ctx, "team_1", "tpl_u", service.TemplateChange{Body: s("x")})), fault.Forbidden, domain.CodeTemplateProtected)
	requireCode(t, errOf(svc.ChangeTemplate(ctx, "team_1", "tpl_a", service.TemplateChange{MessageType: s(domain.TypeUrgentAlert)})), fault.Invalid, domain.CodeUrgentNotAllowed)
	f := requireCode(t, errOf(svc.ChangeTemplate(ctx, "team_1", "tpl_a", service.TemplateChange{Name: s("game")})), fault.Conflict, domain.CodeTemplateExists)
	require.Equal(t, "tpl_b", f.Fields["existing_template_id"])
	require.Equal(t, "Practice", store.templates["tpl_a"].Name, "refused changes change nothing")

	clk.Advance(time.Minute)
	got, err := svc.ChangeTemplate(ctx, "team_1", "tpl_a", service.TemplateChange{Name: s("meet"), Body: s("New body")})
	require.NoError(t, err)
	want := domain.Template{ID: "tpl_a", TeamID: "team_1", Name: "meet", Body: "New body", MessageType: domain.TypeStandard, CreatedAt: t0, UpdatedAt: t0.Add(time.Minute)}
	require.Equal(t, want, *got)
	require.Equal(t, want, store.templates["tpl_a"])
	require.Equal(t, "Meet (deleted tpl_old)", store.templates["tpl_old"].Name, "the deleted template with the name is set aside")
	require.NotNil(t, store.templates["tpl_old"].DeletedAt, "still deleted")

	_, err = svc.ChangeTemplate(ctx, "team_1", "tpl_a", service.TemplateChange{Name: s("Meet")})
	require.NoError(t, err, "a template may take its own name in another case")
	require.Equal(t, "Meet", store.templates["tpl_a"].Name)
}

func TestDeleteTemplate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, store, clk := newService(t)
	store.templates["tpl_a"] = domain.Template{ID: "tpl_a", TeamID: "team_1", Name: "Practice", MessageType: domain.TypeStandard}
	store.templates["tpl_u"] = domain.Template{ID: "tpl_u", TeamID: "team_1", Name: "Alert", MessageType: domain.TypeUrgentAlert}

	requireCode(t, svc.DeleteTemplate(ctx, "team_2", "tpl_a", false), fault.NotFound, fault.CodeNotFound)
	requireCode(t, svc.DeleteTemplate(ctx, "team_1", "tpl_u", false), fault.Forbidden, domain.CodeTemplateProtected)
	require.Nil(t, store.templates["tpl_u"].DeletedAt)

	clk.Advance(time.Minute)
	require.NoError(t, svc.DeleteTemplate(ctx, "team_1", "tpl_a", false))
	require.Equal(t, t0.Add(time.Minute), *store.templates["tpl_a"].DeletedAt)
	requireCode(t, svc.DeleteTemplate(ctx, "team_1", "tpl_a", false), fault.NotFound, fault.CodeNotFound)
	requireCode(t, errOf(svc.Template(ctx, "team_1", "tpl_a")), fault.NotFound, fault.CodeNotFound)
	require.NoError(t, svc.DeleteTemplate(ctx, "team_1", "tpl_u", true), "the dashboard deletes urgent-alert templates")

	list, err := svc.Templates(ctx, "team_1", 50, 0)
	require.NoError(t, err)
	require.Empty(t, list)
}

func TestCancelScheduled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, store, clk := newService(t)
	until := t0.AddDate(0, 1, 0)
	store.scheduled["sch_1"] = domain.NewScheduled("sch_1", "team_1", "key_1", "mem_1", []byte(`{}`), t0.Add(time.Hour), &until, t0)
	store.scheduled["sch_2"] = domain.NewScheduled("sch_2", "team_1", "key_1", "mem_1", []byte(`{}`), t0.Add(2*time.Hour), nil, t0)
	stopped := domain.NewScheduled("sch_3", "team_1", "key_1", "mem_1", []byte(`{}`), t0.Add(time.Hour), nil, t0)
	stopped.Stop("key_revoked")
	store.scheduled["sch_3"] = stopped

	requireCode(t, svc.CancelScheduled(ctx, "team_2", "sch_1"), fault.NotFound, fault.CodeNotFound)
	requireCode(t, svc.CancelScheduled(ctx, "team_1", "sch_x"), fault.NotFound, fault.CodeNotFound)
	f := requireCode(t, svc.CancelScheduled(ctx, "team_1", "sch_3"), fault.NotFound, fault.CodeNotFound)
	require.Contains(t, f.Message, "(it is stopped)")
	require.Equal(t, stopped, store.scheduled["sch_3"])

	clk.Advance(time.Minute)
	require.NoError(t, svc.CancelScheduled(ctx, "team_1", "sch_1"))
	got := store.scheduled["sch_1"]
	require.Equal(t, domain.ScheduledCancelled, got.Status)
	require.Equal(t, "cancelled", got.StatusReason)
	require.Equal(t, t0.Add(time.Minute), got.UpdatedAt)
	f = requireCode(t, svc.CancelScheduled(ctx, "team_1", "sch_1"), fault.NotFound, fault.CodeNotFound)
	require.Contains(t, f.Message, "(it is cancelled)")

	pending, err := svc.ScheduledList(ctx, "team_1", 50, 0)
	require.NoError(t, err)
	require.Len(t, pending, 1)
	require.Equal(t, "sch_2", pending[0].ID)
}
