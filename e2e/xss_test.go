package e2e

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/views"
)

// Player names are text: markup in a name shows literally, both in the page as served and
// in the fragments pushed over the websocket, and never runs.
func TestPlayerNamesAreText(t *testing.T) {
	t.Parallel()
	_, addr := ownRedis(t)
	z := startZpulse(t, addr)
	const img = `<img src=x onerror=alert(1)>`
	const svg = `"><svg onload=alert(2)>`
	api := z.URL + "/api/v1/boards/xss/scores"
	addPoints := func(player string, points int) {
		t.Helper()
		if status, body := postJSON(t, api, map[string]any{"player": player, "points": points}); status != http.StatusOK {
			t.Fatalf("POST %s %q: %d %s", api, player, status, body)
		}
	}
	addPoints(img, 5)

	ctx := newBrowser(t)
	var dialogs atomic.Int32
	watchDialogs(ctx, &dialogs)
	do(t, ctx, "open the board", chromedp.Navigate(z.URL+"/boards/xss"))
	waitLive(t, ctx)
	panel := views.BoardPanelID("xss", domain.AllTime, domain.BoardTopN)
	assertLiteral(t, ctx, panel, img, "5")

	// Once more while the page is open: these arrive in a pushed fragment.
	addPoints(img, 5)
	addPoints(svg, 1)
	waitRow(t, ctx, img, "10", eventWait)
	waitRow(t, ctx, svg, "1", eventWait)
	assertLiteral(t, ctx, panel, img, "10")
	assertLiteral(t, ctx, panel, svg, "1")

	// The listener has seen any dialog by now; an open one would also block this round trip
	// until the listener dismissed it.
	eval[int](t, ctx, `1`)
	if n := dialogs.Load(); n > 0 {
		t.Errorf("%d JavaScript dialog(s) opened: a player name ran as script", n)
	}
}

// assertLiteral checks that player's row shows the name as text and that the panel holds no
// element made from it: no <img>, no <svg>, no event handler attribute.
func assertLiteral(t *testing.T, ctx context.Context, panelID, player, score string) {
	t.Helper()
	r := findRow(t, ctx, player)
	if r.Player != player || r.Score != score {
		t.Errorf("row = %+v, want the player %q shown literally with score %s", r, player, score)
	}
	bad := eval[[]string](t, ctx, `(() => {
		const panel = document.getElementById(`+jsString(panelID)+`);
		if (!panel) return ['no panel'];
		const bad = [];
		for (const el of panel.querySelectorAll('*')) {
			if (['IMG', 'SVG', 'SCRIPT'].includes(el.tagName.toUpperCase())) bad.push('<' + el.tagName.toLowerCase() + '>');
			for (const a of el.attributes) if (a.name.startsWith('on')) bad.push(el.tagName.toLowerCase() + '[' + a.name + ']');
		}
		return bad;
	})()`)
	if len(bad) > 0 {
		t.Errorf("the board panel holds elements made from a player name: %v", bad)
	}
}

// watchDialogs counts the JavaScript dialogs the tab opens, and dismisses them so that the
// page does not hang.
func watchDialogs(ctx context.Context, n *atomic.Int32) {
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			n.Add(1)
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
}
