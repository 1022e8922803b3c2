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
	if status, body := bearerJSON(t, http.MethodPost, z.URL+"/api/v1/queues/email/jobs", "the-admin-token", map[string]any{"id": "bounce-1", "priority": 2, "payload": map[string]any{"to": "bob@example.com"}}); status != http.StatusCreated {
		t.Fatalf("enqueue: %d %s", status, body)
	}
	if status, body := bearerJSON(t, http.MethodPost, z.URL+"/api/v1/queues/email/bulk", "the-admin-token", map[string]any{"action": "dead", "ids": []string{"bounce-1"}}); status != http.StatusOK {
		t.Fatalf("move to dead: %d %s", status, body)
	}
	// Each page's forms, by a selector of the form (or of its controls), with the role its
	// route declares (internal/web/routes.go).
	type guardedForm struct{ sel, need string }
	pages := []struct {
		name, path string
		forms      []guardedForm
	}{
		{"board", "/boards/game:2048", []guardedForm{{"#add-points", "operator"}, {"#board-reset", "admin"}}},
		{"queue", "/queues/email", []guardedForm{{"#queue-enqueue", "operator"}, {"#queue-settings", "admin"}, {`[data-testid="pause"]`, "operator"}}},
		{"job", "/queues/email/jobs/welcome-1", nil},
		{"deadjob", "/queues/email/jobs/bounce-1", []guardedForm{{`[data-testid="retry-form"]`, "operator"}, {`button[aria-label="Requeue bounce-1"]`, "operator"}}},
		{"deadjobs", "/queues/email/jobs?state=dead", []guardedForm{{"#bulk-form", "admin"}, {`[data-testid="select-job"]`, "admin"}}},
		{"confirm", "/queues/email/dead/delete", []guardedForm{{`main form[method="post"]`, "admin"}}},
		{"limiter", "/limiters/default", []guardedForm{{"#limiter-try", "operator"}, {"#limiter-policy", "admin"}}},
		{"locks", "/locks", []guardedForm{{"#lock-forms", "operator"}}},
		{"forcerelease", "/locks/order:1001/force-release", []guardedForm{{`main form[method="post"]`, "admin"}}},
		{"sources", "/sources", []guardedForm{{`section[aria-label="Adopt a source"] form`, "admin"}}},
	}
	rank := map[string]int{"viewer": 1, "operator": 2, "admin": 3}
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
				for _, f := range p.forms {
					want := "enabled"
					if rank[role] < rank[f.need] {
						want = "disabled"
					}
					if got := eval[string](t, ctx, `(`+formStateJS+`)(`+strconv.Quote(f.sel)+`)`); got != want {
						t.Errorf("%s: %s (needs %s) is %s, want %s", name, f.sel, f.need, got, want)
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

// formStateJS says of the controls a selector names (or holds) whether they are all
// "enabled", or all "disabled" each inside a disabled fieldset marked aria-disabled right
// after the one line saying why; anything else is named for the failure.
const formStateJS = `sel => {
	const els = [...document.querySelectorAll(sel)];
	if (!els.length) return 'missing';
	const ctrls = els.flatMap(e => e.matches('button, input, select, textarea') ? [e] : [...e.querySelectorAll('button, input:not([type=hidden]), select, textarea')]);
	if (!ctrls.length) return 'without controls';
	const off = ctrls.filter(c => c.matches(':disabled'));
	if (off.length === 0) return 'enabled';
	if (off.length !== ctrls.length) return 'partly disabled';
	for (const c of ctrls) {
		const f = c.closest('fieldset[data-read-only]');
		if (!f || f.getAttribute('aria-disabled') !== 'true') return 'disabled without aria-disabled';
		const note = f.previousElementSibling;
		if (!note || note.dataset.testid !== 'read-only-note' || note.textContent.trim() === '') return 'disabled without the line saying why';
	}
	return 'disabled';
}`
