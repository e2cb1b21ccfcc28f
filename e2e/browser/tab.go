package browser

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Option sets up a tab NewTab opens.
type Option func(*tabConfig)

type tabConfig struct {
	setup []chromedp.Action[chromedp.Void]
}

// JavaScriptDisabled turns off the page's scripts in the tab, for every page
// it loads (as a browser with JavaScript off would). Evaluations through the
// DevTools protocol, such as HasHorizontalScroll, still run.
func JavaScriptDisabled() Option {
	return func(c *tabConfig) {
		c.setup = append(c.setup, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled,
				emulation.SetScriptExecutionDisabledParams{Value: true})
			return err
		}))
	}
}

// Viewport emulates a phone's screen width×height CSS pixels: a mobile
// device (the page's viewport meta tag applies), with touch, at scale 1.
func Viewport(width, height int) Option {
	return func(c *tabConfig) {
		c.setup = append(c.setup, chromedp.EmulateViewport(int64(width), int64(height),
			chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait))
	}
}

// Dialog is a JavaScript dialog a page opened.
type Dialog struct {
	Type    string // "alert", "confirm", "prompt" or "beforeunload"
	Message string
}

type dialogLog struct {
	mu     sync.Mutex
	opened []Dialog
}

type dialogKey struct{}

// Dialogs lists the dialogs opened so far in the tab of ctx (from NewTab),
// oldest first. Each was accepted as it opened: confirm() returned true and
// prompt() its default text. A dialog is listed before the page goes on
// past it.
func Dialogs(ctx context.Context) []Dialog {
	l, ok := ctx.Value(dialogKey{}).(*dialogLog)
	if !ok {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Dialog(nil), l.opened...)
}

// accept records and accepts each dialog of events until ctx ends.
func (l *dialogLog) accept(ctx context.Context, events iter.Seq2[page.EventJavascriptDialogOpening, error]) {
	for ev, err := range events {
		if err != nil {
			return
		}
		l.mu.Lock()
		l.opened = append(l.opened, Dialog{Type: string(ev.Type), Message: ev.Message})
		l.mu.Unlock()
		_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog,
			page.HandleJavaScriptDialogParams{Accept: true, PromptText: ev.DefaultPrompt})
	}
}

// NewTab opens a tab in a browser context of its own (cookies, storage and
// cache shared with no other tab) and returns its chromedp context. The tab
// closes when t ends; if t failed, a screenshot of it is saved first in
// $BROWSER_ARTIFACTS when that is set.
func (b *Browser) NewTab(t testing.TB, opts ...Option) context.Context {
	t.Helper()
	var cfg tabConfig
	for _, o := range opts {
		o(&cfg)
	}
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	// Subscribing opens the tab, before any page can open a dialog in it.
	l := &dialogLog{}
	go l.accept(ctx, chromedp.Events(ctx, page.JavascriptDialogOpening))
	if err := chromedp.Do(ctx, cfg.setup...); err != nil {
		t.Fatalf("browser: new tab: %v", err)
	}
	// Cleanups run last first: this one before the tab closes.
	t.Cleanup(func() {
		if t.Failed() {
			saveFailureScreenshot(t, ctx)
		}
	})
	return context.WithValue(ctx, dialogKey{}, l)
}

func saveFailureScreenshot(t testing.TB, ctx context.Context) {
	dir := os.Getenv("BROWSER_ARTIFACTS")
	if dir == "" {
		t.Log("browser: set BROWSER_ARTIFACTS to a directory to keep a screenshot of a failed test's tab")
		return
	}
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
	path := filepath.Join(dir, name+".png")
	if err := Screenshot(ctx, path); err != nil {
		t.Logf("browser: failure screenshot: %v", err)
		return
	}
	t.Logf("browser: screenshot of the tab at failure: %s", path)
}

// Screenshot saves a PNG of the whole page of the tab in path (its directory
// is created).
func Screenshot(ctx context.Context, path string) error {
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	return nil
}

// HasHorizontalScroll reports whether the page in the tab is wider than its
// viewport (document.documentElement.scrollWidth > clientWidth), the mark of
// a layout that does not fit a phone. It works with JavaScriptDisabled: the
// DevTools protocol evaluates it, not the page's scripts.
func HasHorizontalScroll(ctx context.Context) (bool, error) {
	wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](
		`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
	if err != nil {
		return false, fmt.Errorf("measure the page: %w", err)
	}
	return wide, nil
}
