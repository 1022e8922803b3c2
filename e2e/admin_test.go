package e2e

import (
	"context"
	"net/http"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// With an admin token, the board page shows the form disabled with one line saying why and a
// sign-in link; the right token enables it, a wrong one gets an inline error.
func TestAdminSignIn(t *testing.T) {
	t.Parallel()
	_, addr := ownRedis(t)
	z := startZpulse(t, addr, "--admin-token", "secret")
	ctx := newBrowser(t)
	do(t, ctx, "open the board", chromedp.Navigate(z.URL+"/boards/game:2048"))

	if got := text(t, ctx, "#add-points a"); got != "Sign in" {
		t.Errorf("add-points link = %q, want \"Sign in\"", got)
	}
	if !exists(t, ctx, "#add-points fieldset[disabled] #f-add-player") || !exists(t, ctx, `#add-points [data-testid="read-only-note"]`) {
		t.Errorf("the add-points form is not shown disabled, with why, before signing in")
	}

	resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS("#add-points a")))
	if err != nil {
		t.Fatalf("follow the sign-in link: %v", err)
	}
	if loc := location(t, ctx); resp.Status != http.StatusOK || loc.Path != "/login" || loc.Query().Get("next") != "/boards/game:2048" {
		t.Fatalf("sign-in link led to %s (%d), want /login?next=/boards/game:2048", loc, resp.Status)
	}

	resp = signIn(t, ctx, "not-the-token")
	if resp.Status != http.StatusUnauthorized {
		t.Errorf("a wrong token answered %d, want 401", resp.Status)
	}
	if got, want := text(t, ctx, "#f-login-token-error"), "That is not the admin token nor a live personal token (it may have been revoked or have expired)."; got != want {
		t.Errorf("token error = %q, want %q", got, want)
	}

	resp = signIn(t, ctx, "secret")
	if loc := location(t, ctx); resp.Status != http.StatusOK || loc.Path != "/boards/game:2048" {
		t.Fatalf("signing in led to %s (%d), want back to /boards/game:2048", loc, resp.Status)
	}
	if !exists(t, ctx, "#add-points form #f-add-player") || exists(t, ctx, "#add-points fieldset[disabled]") {
		t.Fatalf("no add-points form after signing in; the section says %q", text(t, ctx, "#add-points"))
	}
	if exists(t, ctx, "#f-login-token-error") {
		t.Errorf("the token error is still shown after signing in")
	}

	// The session works for the htmx post too (cookie and CSRF token).
	waitLive(t, ctx)
	submitForm(t, ctx, "root", "3")
	waitJS(t, ctx, "the success message", `document.querySelector('[data-testid="add-points-ok"]') !== null`, eventWait)
	waitRow(t, ctx, "root", "3", eventWait)
}

// signIn submits the sign-in form with token and returns the response of the page it leads to.
func signIn(t *testing.T, ctx context.Context, token string) *network.Response {
	t.Helper()
	resp, err := chromedp.RunResponse(ctx,
		chromedp.SendKeys(chromedp.ID("f-login-token"), token),
		chromedp.Click(chromedp.CSS(`form[action="/login"] button[type="submit"]`)),
	)
	if err != nil {
		t.Fatalf("sign in: %v", err)
	}
	return resp
}
