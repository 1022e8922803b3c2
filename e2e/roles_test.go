package e2e

import (
	"bytes"
	"encoding/json"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// bearerJSON sends a JSON request with a bearer token and returns the status and body.
func bearerJSON(t *testing.T, method, url, token string, body any) (int, string) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(method, url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// A viewer, an operator and an admin, each signed in with a personal token (the admin with
// the bootstrap token), on the board, queue, job, limiter and locks pages at 1280x900 and
// 360x740, light and dark: the forms their role may not use are disabled with a line saying
// why, the others enabled; the header names them and their role; axe finds nothing.
func TestRolesInTheBrowser(t *testing.T) {
	t.Parallel()
	_, addr := ownRedis(t)
	z := startZpulse(t, addr, "--admin-token", "the-admin-token")
	secrets := map[string]string{"admin": "the-admin-token"}
	for _, role := range []string{"viewer", "operator"} {
		status, body := bearerJSON(t, http.MethodPost, z.URL+"/api/v1/tokens", "the-admin-token", map[string]any{"name": role + ".person", "role": role})
		if status != http.StatusCreated {
			t.Fatalf("make the %s's token: %d %s", role, status, body)
		}
		var made struct{ Token string }
		_ = json.Unmarshal([]byte(body), &made)
		secrets[role] = made.Token
	}
	for _, p := range []string{"alice", "bob", "carol"} {
		if status, body := bearerJSON(t, http.MethodPost, z.URL+"/api/v1/boards/game:2048/scores", "the-admin-token", map[string]any{"player": p, "points": len(p) * 100}); status != http.StatusOK {
			t.Fatalf("add %s: %d %s", p, status, body)
		}
	}
	if status, body := bearerJSON(t, http.MethodPost, z.URL+"/api/v1/queues/email/jobs", "the-admin-token", map[string]any{"id": "welcome-1", "priority": 1, "payload": map[string]any{"to": "ann@example.com"}}); status != http.StatusCreated {
		t.Fatalf("enqueue: %d %s", status, body)
	}
	if status, body := bearerJSON(t, http.MethodPost, z.URL+"/api/v1/locks/order:1001/acquire", "the-admin-token", map[string]any{"ttl_ms": 600000}); status != http.StatusOK {
		t.Fatalf("acquire: %d %s", status, body)
	}
	axe, err := os.ReadFile(filepath.Join("..", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is an npm devDependency (make assets installs it): %v", err)
	}
	dir := filepath.Join(screenshotDir, "roles")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	pages := []struct {
		name, path, operatorForm, adminForm string // selectors of a form each role needs
	}{
		{"board", "/boards/game:2048", "#add-points", "#board-reset"},
		{"queue", "/queues/email", "#queue-enqueue", "#queue-settings"},
		{"job", "/queues/email/jobs/welcome-1", "", ""},
		{"limiter", "/limiters/default", "#limiter-try", "#limiter-policy"},
		{"locks", "/locks", "#lock-forms", ""},
	}
	for _, role := range []string{"viewer", "operator", "admin"} {
		ctx := newBrowserWithin(t, 5*time.Minute)
		do(t, ctx, "open the sign-in page", chromedp.Navigate(z.URL+"/login"))
		signIn(t, ctx, secrets[role])
		for _, p := range pages {
			for _, l := range []struct {
				width, height int64
				mobile        bool
				scheme        string
			}{
				{1280, 900, false, "light"}, {1280, 900, false, "dark"}, {360, 740, true, "light"}, {360, 740, true, "dark"},
			} {
				name := role + "-" + p.name + "-" + strconv.FormatInt(l.width, 10) + "x" + strconv.FormatInt(l.height, 10) + "-" + l.scheme + ".png"
				viewport := chromedp.EmulateViewport(l.width, l.height)
				if l.mobile {
					viewport = chromedp.EmulateViewport(l.width, l.height, chromedp.EmulateMobile, chromedp.EmulateTouch)
				}
				do(t, ctx, "size for "+name, viewport)
				if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: l.scheme}}}); err != nil {
					t.Fatal(err)
				}
				do(t, ctx, "open "+p.path, chromedp.Navigate(z.URL+p.path))
				waitLive(t, ctx)
				waitJS(t, ctx, "the "+l.scheme+" theme", `document.documentElement.classList.contains('dark') === `+strconv.FormatBool(l.scheme == "dark"), 2*time.Second)
				waitJS(t, ctx, "colours settling", `!document.getAnimations().some(a => a instanceof CSSTransition)`, 2*time.Second)
				if got := text(t, ctx, `[data-testid="actor-role"]`); got == "" {
					t.Errorf("%s: the header does not say the role", name)
				}
				if p.operatorForm != "" {
					disabled := exists(t, ctx, p.operatorForm+` [data-testid="read-only-note"]`)
					if disabled != (role == "viewer") {
						t.Errorf("%s: %s read-only = %v", name, p.operatorForm, disabled)
					}
				}
				if p.adminForm != "" && exists(t, ctx, p.adminForm) {
					disabled := exists(t, ctx, p.adminForm+` [data-testid="read-only-note"]`)
					if disabled != (role != "admin") {
						t.Errorf("%s: %s read-only = %v", name, p.adminForm, disabled)
					}
				}
				injectAxe(t, ctx, axe)
				for _, v := range axeViolations(t, ctx) {
					t.Errorf("%s: %s", name, v)
				}
				if width := eval[int](t, ctx, `document.documentElement.scrollWidth`); width > int(l.width) {
					t.Errorf("%s: the page is %dpx wide, it scrolls sideways", name, width)
				}
				buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatalf("screenshot %s: %v", name, err)
				}
				if cfg, err := png.DecodeConfig(bytes.NewReader(buf)); err != nil || cfg.Width != int(l.width) {
					t.Fatalf("%s: not a %dpx PNG (%v)", name, l.width, err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), buf, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
