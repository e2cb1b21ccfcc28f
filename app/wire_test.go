package app

import (
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"github.com/teamtext/teamtext/platform/config"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/jobs"
)

// invokes records the graph's invokes in order.
type invokes struct {
	mu   sync.Mutex
	seen []string // "module function"
}

func (l *invokes) LogEvent(e fxevent.Event) {
	if ev, ok := e.(*fxevent.Invoked); ok && ev.Err == nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.seen = append(l.seen, ev.ModuleName+" "+ev.FunctionName)
	}
}

func (l *invokes) index(t *testing.T, match func(string) bool) int {
	t.Helper()
	for i, s := range l.seen {
		if match(s) {
			return i
		}
	}
	t.Fatalf("no such invoke in %v", l.seen)
	return -1
}

// TestWorkerClientBuiltLastStartedFirst: the graph builds with the worker
// client made from the "workers" group (no cycle), and the invoke that
// hooks River into the lifecycle runs before any business module's
// invokes, so River starts before messaging's hand-over loops and stops
// after them, as it did when one client both inserted and worked.
func TestWorkerClientBuiltLastStartedFirst(t *testing.T) {
	t.Parallel()
	cfg, err := config.Load(func(string) string { return "" }, config.Need{})
	require.NoError(t, err)
	cfg.DatabaseURL = offlineDatabaseURL
	log := &invokes{}
	var runner *jobs.Runner
	app := fx.New(
		platformOptions(cfg, slog.New(slog.DiscardHandler), "test", db.OpenLazy),
		modules(),
		fx.WithLogger(func() fxevent.Logger { return log }),
		fx.Populate(&runner),
	)
	require.NoError(t, app.Err())
	require.NotNil(t, runner)
	river := log.index(t, func(s string) bool { return strings.HasPrefix(s, "jobs ") })
	engine := log.index(t, func(s string) bool { return strings.HasSuffix(s, "messaging.startEngine()") })
	require.Less(t, river, engine, "River's hooks are appended before the delivery engine's")
	for i, s := range log.seen[:river] {
		require.False(t, strings.Contains(s, "/modules/"), "invoke %d (%s) of a module runs before River's", i, s)
	}
}
