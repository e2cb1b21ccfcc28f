// Package browser drives a real headless Chromium for the tests of the pages
// the service serves (the staff dashboard under /app/).
//
// Launch starts the image `make browser-image` builds (BROWSER_IMAGE, default
// DefaultImage) as a container through testcontainers, with host
// networking, so the browser reaches services a test starts on 127.0.0.1
// and its DevTools endpoint listens on the host's loopback only. NewTab
// opens an isolated tab (its own browser context: cookies and storage are
// not shared) that lives until the test ends; run chromedp actions on the
// context it returns:
//
//	b, err := browser.Launch(ctx) // once, in TestMain
//	...
//	tab := b.NewTab(t, browser.Viewport(390, 844))
//	err := chromedp.Do(tab, chromedp.Navigate(srv.URL+"/app/"))
//
// Every tab accepts JavaScript dialogs (alert, confirm, prompt) as they open,
// so none can stall a test, and records them for Dialogs.
package browser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// DefaultImage is built by `make browser-image`.
const DefaultImage = "teamtext-chromium:bookworm"

// Browser is a running Chromium container and the DevTools connection to it.
type Browser struct {
	container testcontainers.Container
	ctx       context.Context // chromedp context connected to the browser
	cancel    context.CancelFunc
	version   string
}

// Launch starts headless Chromium (image from BROWSER_IMAGE, else
// DefaultImage) and connects to it. ctx bounds the start only; Close stops
// the browser.
func Launch(ctx context.Context) (*Browser, error) {
	ensureEnv()
	img := os.Getenv("BROWSER_IMAGE")
	if img == "" {
		img = DefaultImage
	}
	// testcontainers would try to pull a missing image, retrying for minutes
	// on a machine with no registry: say what to do at once instead.
	if err := imageExists(ctx, img); err != nil {
		return nil, fmt.Errorf("browser image %s (run `make browser-image`): %w", img, err)
	}
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("pick a devtools port: %w", err)
	}
	c, err := testcontainers.Run(ctx, img,
		testcontainers.WithEnv(map[string]string{"CHROMIUM_PORT": strconv.Itoa(port)}),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.NetworkMode = "host"
			hc.Init = new(true) // docker-init as PID 1: forwards SIGTERM, reaps orphans
		}),
		testcontainers.WithWaitStrategy(wait.ForLog("DevTools listening on").WithStartupTimeout(time.Minute)),
	)
	if err != nil {
		if c != nil {
			_ = testcontainers.TerminateContainer(c)
		}
		return nil, fmt.Errorf("start browser (%s; run `make browser-image`): %w", img, err)
	}
	b := &Browser{container: c}
	// The browser lives until Close, not until ctx ends: chromedp binds it
	// to the context of the first call.
	alloc, cancelAlloc := remote.NewAllocator(context.Background(), "http://127.0.0.1:"+strconv.Itoa(port))
	bctx, cancelCtx := chromedp.NewContext(alloc)
	b.ctx = bctx
	b.cancel = func() { cancelCtx(); cancelAlloc() }
	v, err := chromedp.CallBrowser(bctx, cdpbrowser.GetVersion, cdp.Empty{})
	if err != nil {
		_ = b.Close()
		return nil, fmt.Errorf("connect to the browser on 127.0.0.1:%d: %w", port, err)
	}
	b.version = v.Product
	return b, nil
}

// Version is the browser's product name and version, e.g. "HeadlessChrome/156.0.8078.114".
func (b *Browser) Version() string { return b.version }

// Close disconnects and removes the container.
func (b *Browser) Close() error {
	b.cancel()
	if err := testcontainers.TerminateContainer(b.container); err != nil {
		return fmt.Errorf("stop browser: %w", err)
	}
	return nil
}

// ensureEnv gives testcontainers the settings this machine needs unless set
// (the Makefile sets them too).
func ensureEnv() {
	for k, v := range map[string]string{
		"TESTCONTAINERS_RYUK_DISABLED": "true",
		"TESTCONTAINERS_HOST_OVERRIDE": "localhost",
	} {
		if os.Getenv(k) == "" {
			_ = os.Setenv(k, v)
		}
	}
}

func imageExists(ctx context.Context, img string) error {
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return fmt.Errorf("docker: %w", err)
	}
	defer cli.Close()
	if _, err := cli.ImageInspect(ctx, img); err != nil {
		return fmt.Errorf("not found locally: %w", err)
	}
	return nil
}

// freePort returns a TCP port free on 127.0.0.1 a moment ago. The browser
// binds it in the host's network namespace, so another process could take
// it in between; the window is short and a clash fails loudly.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("not a TCP address")
	}
	return addr.Port, nil
}

// Upload copies a file of the test's machine into the browser's container,
// where a file field can pick it (chromedp.SetUploadFiles), and returns its
// path there.
func (b *Browser) Upload(ctx context.Context, hostPath string) (string, error) {
	dst := "/tmp/uploads/" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-" + filepath.Base(hostPath)
	if err := b.container.CopyFileToContainer(ctx, hostPath, dst, 0o644); err != nil {
		return "", fmt.Errorf("copy %s into the browser: %w", filepath.Base(hostPath), err)
	}
	return dst, nil
}
