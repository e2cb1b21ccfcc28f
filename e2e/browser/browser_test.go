package browser_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/browser"
)

var chromium *browser.Browser

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := browser.Launch(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		if err := b.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}()
	fmt.Println("browser:", b.Version())
	chromium = b
	return m.Run()
}

const head = `<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>rig</title></head><body>`

// site is a tiny server on 127.0.0.1 with one page per thing the rig must show.
func site(t *testing.T) string {
	t.Helper()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, head+body)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("GET /form", page(`<form method="post" action="/form">
<label for="name">Name</label> <input id="name" name="name">
<button type="submit">Send</button></form>`))
	mux.HandleFunc("POST /form", func(w http.ResponseWriter, r *http.Request) {
		page(`<p id="echo">Hello, `+html.EscapeString(r.FormValue("name"))+`</p>`)(w, r)
	})
	mux.Handle("GET /script", page(`<p id="msg">static</p>
<script>document.getElementById("msg").textContent = "scripted"</script>`))
	mux.Handle("GET /dialogs", page(`<p id="msg">before</p><script>
alert("hello");
document.getElementById("msg").textContent = confirm("sure?") ? "confirmed" : "cancelled";
</script>`))
	mux.Handle("GET /wide", page(`<div style="width:1000px">wide</div>`))
	mux.Handle("GET /narrow", page(`<p>A page that fits any phone.</p>`))
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "who", Value: r.FormValue("as"), Path: "/"})
		http.Redirect(w, r, "/whoami", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /whoami", func(w http.ResponseWriter, r *http.Request) {
		who := "nobody"
		if c, err := r.Cookie("who"); err == nil {
			who = c.Value
		}
		page(`<p id="who">`+html.EscapeString(who)+`</p>`)(w, r)
	})
	srv := httptest.NewServer(mux) // 127.0.0.1, a random port
	t.Cleanup(srv.Close)
	return srv.URL
}

func text(t *testing.T, tab context.Context, id string) string {
	t.Helper()
	s, err := chromedp.Run(tab, chromedp.Text(chromedp.ID(id)))
	require.NoError(t, err)
	return s
}

func TestFormPostsThroughTheBrowser(t *testing.T) {
	url := site(t)
	tab := chromium.NewTab(t)
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(url+"/form")))
	label, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById("name").labels[0].textContent`))
	require.NoError(t, err)
	require.Equal(t, "Name", label, "the field has its label")

	require.NoError(t, chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("name"), "Ada <Lovelace>")))
	resp, err := chromedp.RunResponse(tab, chromedp.Click(`button[type="submit"]`))
	require.NoError(t, err)
	require.EqualValues(t, http.StatusOK, resp.Status)
	require.Equal(t, "Hello, Ada <Lovelace>", text(t, tab, "echo"))
}

func TestJavaScriptDisabled(t *testing.T) {
	url := site(t)
	on := chromium.NewTab(t)
	require.NoError(t, chromedp.Do(on, chromedp.Navigate(url+"/script")))
	require.Equal(t, "scripted", text(t, on, "msg"), "scripts run in a normal tab")

	off := chromium.NewTab(t, browser.JavaScriptDisabled())
	require.NoError(t, chromedp.Do(off, chromedp.Navigate(url+"/script")))
	require.Equal(t, "static", text(t, off, "msg"), "the page's script did not run")
	// Still off after another navigation in the same tab.
	require.NoError(t, chromedp.Do(off, chromedp.Navigate(url+"/narrow"), chromedp.Navigate(url+"/script")))
	require.Equal(t, "static", text(t, off, "msg"))
}

func TestDialogsAreRecordedAndAccepted(t *testing.T) {
	url := site(t)
	tab := chromium.NewTab(t)
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(url+"/narrow")))
	require.Empty(t, browser.Dialogs(tab), "a page without dialogs opened none")

	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(url+"/dialogs")))
	require.Equal(t, []browser.Dialog{
		{Type: "alert", Message: "hello"},
		{Type: "confirm", Message: "sure?"},
	}, browser.Dialogs(tab))
	require.Equal(t, "confirmed", text(t, tab, "msg"), "confirm() returned true")
}

func TestHorizontalScrollOnAPhone(t *testing.T) {
	url := site(t)
	for _, js := range []bool{true, false} {
		t.Run(fmt.Sprintf("javascript=%v", js), func(t *testing.T) {
			opts := []browser.Option{browser.Viewport(390, 844)}
			if !js {
				opts = append(opts, browser.JavaScriptDisabled())
			}
			tab := chromium.NewTab(t, opts...)
			require.NoError(t, chromedp.Do(tab, chromedp.Navigate(url+"/narrow")))
			// A phone's layout width: the page's viewport meta tag applies.
			width, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.documentElement.clientWidth`))
			require.NoError(t, err)
			require.Equal(t, 390, width)
			wide, err := browser.HasHorizontalScroll(tab)
			require.NoError(t, err)
			require.False(t, wide, "a page of text fits")

			require.NoError(t, chromedp.Do(tab, chromedp.Navigate(url+"/wide")))
			wide, err = browser.HasHorizontalScroll(tab)
			require.NoError(t, err)
			require.True(t, wide, "a 1000 px element overflows 390 px")
		})
	}
}

func TestTabsDoNotShareCookies(t *testing.T) {
	url := site(t)
	ada := chromium.NewTab(t)
	require.NoError(t, chromedp.Do(ada, chromedp.Navigate(url+"/login?as=ada")))
	require.Equal(t, "ada", text(t, ada, "who"))

	other := chromium.NewTab(t)
	require.NoError(t, chromedp.Do(other, chromedp.Navigate(url+"/whoami")))
	require.Equal(t, "nobody", text(t, other, "who"), "a new tab has no cookie of another")

	require.NoError(t, chromedp.Do(ada, chromedp.Navigate(url+"/whoami")))
	require.Equal(t, "ada", text(t, ada, "who"), "the first tab keeps its own")
}

func TestScreenshot(t *testing.T) {
	url := site(t)
	tab := chromium.NewTab(t, browser.Viewport(390, 844))
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(url+"/form")))
	path := filepath.Join(t.TempDir(), "shots", "form.png")
	require.NoError(t, browser.Screenshot(tab, path))
	png, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "\x89PNG", string(png[:4]))
}
