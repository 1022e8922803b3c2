package e2e

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"
)

// The add-points form with JavaScript: htmx posts it and swaps in the answer, the new row
// arrives live, and bad input gets an inline error without writing to Redis.
func TestAddPointsFormWithJS(t *testing.T) {
	t.Parallel()
	rdb, addr := ownRedis(t)
	if err := rdb.ZAdd(context.Background(), boardKey, redis.Z{Score: 100, Member: "alice"}).Err(); err != nil {
		t.Fatal(err)
	}
	z := startZpulse(t, addr)
	ctx := newBrowser(t)
	do(t, ctx, "open the board", chromedp.Navigate(z.URL+"/boards/game:2048"))
	waitLive(t, ctx) // htmx has processed the page: the form posts with htmx from now on
	eval[int](t, ctx, `window.__zpulseMarker = 42`)

	submitForm(t, ctx, "dora", "40")
	waitJS(t, ctx, "the success message", `document.querySelector('[data-testid="add-points-ok"]') !== null`, eventWait)
	if got, want := text(t, ctx, `[data-testid="add-points-ok"]`), "dora now has 40 points, rank 2."; got != want {
		t.Errorf("success message = %q, want %q", got, want)
	}
	if r := waitRow(t, ctx, "dora", "40", eventWait); r.Rank != "2" {
		t.Errorf("dora's row = %+v, want rank 2", r)
	}
	if got := eval[int](t, ctx, `window.__zpulseMarker`); got != 42 {
		t.Errorf("the page was reloaded: the form must post with htmx when JavaScript runs")
	}

	// Bad points: an inline error under the points field, the input kept, nothing written.
	submitForm(t, ctx, "erin", "1.5")
	waitJS(t, ctx, "the error under points", `document.querySelector('#f-add-points-error') !== null`, eventWait)
	if msg := text(t, ctx, "#f-add-points-error"); !strings.Contains(msg, "whole number") {
		t.Errorf("points error = %q, want it to say a whole number is needed", msg)
	}
	if exists(t, ctx, "#f-add-player-error") || exists(t, ctx, `[data-testid="add-points-ok"]`) {
		t.Errorf("after bad points, the form shows a player error or a success message")
	}
	if got := eval[string](t, ctx, `document.querySelector('#f-add-points').getAttribute('aria-invalid')`); got != "true" {
		t.Errorf(`#f-add-points aria-invalid = %q, want "true"`, got)
	}
	if got := eval[string](t, ctx, `document.querySelector('#f-add-player').value`); got != "erin" {
		t.Errorf("player field = %q after the error, want what was typed (erin)", got)
	}
	assertNoScore(t, rdb, "erin")

	// A 65-byte player: an inline error under the player field.
	long := strings.Repeat("x", 65)
	submitForm(t, ctx, long, "5")
	waitJS(t, ctx, "the error under player", `document.querySelector('#f-add-player-error') !== null`, eventWait)
	if msg := text(t, ctx, "#f-add-player-error"); !strings.Contains(msg, "64 bytes") {
		t.Errorf("player error = %q, want it to give the 64-byte limit", msg)
	}
	if exists(t, ctx, "#f-add-points-error") {
		t.Errorf("points 5 are fine but the form shows a points error")
	}
	assertNoScore(t, rdb, long)
	if n := rdb.ZCard(context.Background(), boardKey).Val(); n != 2 {
		t.Errorf("ZCARD %s = %d, want 2 (alice and dora)", boardKey, n)
	}
	if got := eval[int](t, ctx, `window.__zpulseMarker`); got != 42 {
		t.Errorf("the page was reloaded by a bad input")
	}
}

// The same form without JavaScript: a plain POST, then a redirect back to the board page
// (post/redirect/get); bad input re-renders the page with the inline error.
func TestAddPointsFormWithoutJS(t *testing.T) {
	t.Parallel()
	rdb, addr := ownRedis(t)
	z := startZpulse(t, addr)
	ctx := newBrowser(t) // a fresh tab
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatalf("disable JavaScript: %v", err)
	}
	boardURL := z.URL + "/boards/game:2048"
	do(t, ctx, "open the board", chromedp.Navigate(boardURL))

	resp := submitFormAndLoad(t, ctx, "nora", "40")
	loc := location(t, ctx)
	if resp.Status != http.StatusOK || loc.Path != "/boards/game:2048" {
		t.Fatalf("after the post: status %d at %s, want 200 back at /boards/game:2048", resp.Status, loc)
	}
	if got, want := text(t, ctx, `[data-testid="flash"]`), "nora now has 40 points, rank 1."; got != want {
		t.Errorf("success message = %q, want %q", got, want)
	}
	if r := findRow(t, ctx, "nora"); r.Score != "40" || r.Rank != "1" {
		t.Errorf("nora's row = %+v, want rank 1 with 40", r)
	}
	if score, err := rdb.ZScore(context.Background(), boardKey, "nora").Result(); err != nil || score != 40 {
		t.Errorf("ZSCORE %s nora = %v, %v; want 40", boardKey, score, err)
	}
	// JavaScript really is off: the page's scripts did not run.
	if got := eval[string](t, ctx, `typeof window.htmx`); got != "undefined" {
		t.Errorf("typeof window.htmx = %q: the page's scripts ran although JavaScript is disabled", got)
	}

	resp = submitFormAndLoad(t, ctx, "olga", "ten")
	loc = location(t, ctx)
	if resp.Status != http.StatusBadRequest || loc.Path != "/boards/game:2048/points" {
		t.Errorf("after bad input: status %d at %s, want 400 at /boards/game:2048/points", resp.Status, loc)
	}
	if msg := text(t, ctx, "#f-add-points-error"); !strings.Contains(msg, "whole number") {
		t.Errorf("points error = %q, want it to say a whole number is needed", msg)
	}
	if got := attr(t, ctx, "#f-add-player", "value"); got != "olga" {
		t.Errorf("player field = %q after the error, want what was typed (olga)", got)
	}
	if r := findRow(t, ctx, "nora"); r.Score != "40" {
		t.Errorf("the re-rendered page lost the board: nora's row = %+v", r)
	}
	assertNoScore(t, rdb, "olga")
}

// submitForm fills in the add-points form (clearing what its fields hold) and submits it.
func submitForm(t *testing.T, ctx context.Context, player, points string) {
	t.Helper()
	do(t, ctx, "fill in and submit the add-points form", fillAndSubmit(player, points)...)
}

// submitFormAndLoad is submitForm for a plain form post: it waits for the page that
// answers and returns its response.
func submitFormAndLoad(t *testing.T, ctx context.Context, player, points string) *network.Response {
	t.Helper()
	resp, err := chromedp.RunResponse(ctx, fillAndSubmit(player, points)...)
	if err != nil {
		t.Fatalf("submit the add-points form: %v", err)
	}
	return resp
}

func fillAndSubmit(player, points string) []chromedp.Action[chromedp.Void] {
	return []chromedp.Action[chromedp.Void]{
		chromedp.Clear(chromedp.ID("f-add-player")),
		chromedp.SendKeys(chromedp.ID("f-add-player"), player),
		chromedp.Clear(chromedp.ID("f-add-points")),
		chromedp.SendKeys(chromedp.ID("f-add-points"), points),
		chromedp.Click(chromedp.CSS(`#add-points button[type="submit"]`)),
	}
}

func assertNoScore(t *testing.T, rdb *redis.Client, player string) {
	t.Helper()
	if score, err := rdb.ZScore(context.Background(), boardKey, player).Result(); !errors.Is(err, redis.Nil) {
		t.Errorf("ZSCORE %s %.20q = %v, %v; want no score: bad input must not be written", boardKey, player, score, err)
	}
}
