package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestBoardPageViews(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	s.do(t, http.MethodPut, "/api/v1/boards/g", "application/json", `{"periods":["daily","monthly"]}`)
	for i := range 6 { // more players than bigKey (5)
		s.postJSON(t, "/api/v1/boards/g/scores", fmt.Sprintf(`{"player":"p%d","points":%d}`, i, 10*i))
	}
	_, page := s.get(t, "/boards/g?period=daily&n=25")
	for _, want := range []string{"Today · top 25", `topic=board.daily.25%3Ag`, ">This month<", `data-testid="big-key"`, "ZSET leaderboard:g:2", "6 today"} {
		if !strings.Contains(page, want) {
			t.Errorf("daily page lacks %s", want)
		}
	}
	if strings.Contains(page, ">This week<") {
		t.Error("a tab for a period the board does not keep")
	}
	for _, q := range []string{"period=hourly", "n=7", "n=abc"} {
		if status, _ := s.get(t, "/boards/g?"+q); status != http.StatusBadRequest {
			t.Errorf("?%s: %d, want 400", q, status)
		}
	}
	// A period the board does not keep falls back to all-time rather than showing nothing.
	if _, page = s.get(t, "/boards/g?period=weekly"); !strings.Contains(page, "All time · top 10") {
		t.Error("a period the board does not keep")
	}
}

func TestPlayerLookup(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	for i := range 10 {
		s.postJSON(t, "/api/v1/boards/g/scores", fmt.Sprintf(`{"player":"p%d","points":%d}`, i, 10*i))
	}
	_, page := s.get(t, "/boards/g?player=p5")
	if !strings.Contains(page, "is <strong>#5</strong> with <strong>50</strong> points") || strings.Count(page, `data-player="p`) != 10+7 {
		t.Errorf("lookup of p5: no rank or not 3 above and below")
	}
	if _, page = s.get(t, "/boards/g?player=nobody"); !strings.Contains(page, "has no score on this board yet") {
		t.Error("an absent player is not shown as not ranked")
	}
}

func TestAdminFormsNeedConfirmation(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	ctx := context.Background()
	for i := range 5 {
		s.postJSON(t, "/api/v1/boards/g/scores", fmt.Sprintf(`{"player":"p%d","points":%d}`, i, i+1))
	}
	status, body, _ := s.postForm(t, "/boards/g", "/boards/g/trim", url.Values{"keep": {"2"}}, "HX-Request", "true")
	if status != http.StatusBadRequest || !strings.Contains(body, "Tick the box to confirm") || s.rdb.ZCard(ctx, "leaderboard:g").Val() != 5 {
		t.Errorf("trim without confirmation: %d", status)
	}
	status, body, _ = s.postForm(t, "/boards/g", "/boards/g/trim", url.Values{"keep": {"2"}, "confirm": {"yes"}}, "HX-Request", "true")
	if status != http.StatusOK || !strings.Contains(body, "Kept the top 2; removed 3 players.") || s.rdb.ZCard(ctx, "leaderboard:g").Val() != 2 {
		t.Errorf("trim: %d %.300s", status, body)
	}
	status, body, _ = s.postForm(t, "/boards/g", "/boards/g/remove", url.Values{"player": {"p0"}, "confirm": {"yes"}}, "HX-Request", "true")
	if status != http.StatusBadRequest || !strings.Contains(body, "is not on board") {
		t.Errorf("removing an absent player: %d", status)
	}
	status, body, _ = s.postForm(t, "/boards/g", "/boards/g/score", url.Values{"player": {"p0"}, "points": {"77"}}, "HX-Request", "true")
	if status != http.StatusOK || !strings.Contains(body, "p0&#39;s score is now 77, rank 1.") {
		t.Errorf("set score: %d %.400s", status, body)
	}
	status, _, h := s.postForm(t, "/boards/g", "/boards/g/reset", url.Values{"confirm": {"yes"}}, "HX-Request", "true")
	if status != http.StatusOK || h.Get("HX-Redirect") != "/boards/g" || s.rdb.Exists(ctx, "leaderboard:g").Val() != 0 {
		t.Errorf("reset: %d redirect %q", status, h.Get("HX-Redirect"))
	}
	if _, page := s.get(t, "/boards/g"); !strings.Contains(page, "Board reset: ") {
		t.Error("the page after a reset does not say it happened")
	}
}

func TestSettingsForm(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	status, body, _ := s.postForm(t, "/boards/g", "/boards/g/settings", url.Values{"tie_break": {"first_reached"}, "periods": {"daily", "weekly"}, "retention_days": {"0"}})
	if status != http.StatusBadRequest || !strings.Contains(body, "“Keep period boards (days)” must be a whole number of days from 1 to 3,650") {
		t.Errorf("bad retention: %d", status)
	}
	status, _, h := s.postForm(t, "/boards/g", "/boards/g/settings", url.Values{"tie_break": {"first_reached"}, "periods": {"daily", "weekly"}, "retention_days": {"14"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/boards/g" {
		t.Fatalf("save: %d %q", status, h.Get("Location"))
	}
	_, b := s.get(t, "/api/v1/boards/g")
	if b != `{"tie_break":"first_reached","periods":["daily","weekly"],"retention_days":14,"keep_seasons":0,"season_every":"","season_zone":"","sort_order":"desc","operator":"incr"}`+"\n" {
		t.Errorf("saved: %s", b)
	}
	if _, page := s.get(t, "/boards/g"); !strings.Contains(page, "Settings saved.") || !strings.Contains(page, ">This week<") || !strings.Contains(page, "Ties: first to reach ranks higher") {
		t.Error("the page does not show the new settings")
	}
}

func TestBoardsListAndEntriesPages(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	for i := range 60 {
		s.postJSON(t, "/api/v1/boards/g/scores", fmt.Sprintf(`{"player":"p%02d","points":%d}`, i, i))
	}
	for _, path := range []string{"/", "/boards"} {
		_, page := s.get(t, path)
		if !strings.Contains(page, `data-board="g"`) || !strings.Contains(page, "60 players") || !strings.Contains(page, `topic=boards`) {
			t.Errorf("%s does not list the board live", path)
		}
	}
	if status, _, h := s.do(t, http.MethodGet, "/boards?board=game:2048", "", ""); status != http.StatusSeeOther || h.Get("Location") != "/boards/game:2048" {
		t.Errorf("open a board: %d %q", status, h.Get("Location"))
	}
	_, page := s.get(t, "/boards/g/entries")
	next := regexpFind(t, page, `href="(/boards/g/entries\?cursor=[^"]+)" rel="next"`)
	if strings.Count(page, `data-player="p`) != 50 {
		t.Errorf("first page has %d rows", strings.Count(page, `data-player="p`))
	}
	_, page = s.get(t, strings.ReplaceAll(next, "&amp;", "&"))
	if strings.Count(page, `data-player="p`) != 10 || !strings.Contains(page, `data-player="p00"`) || strings.Contains(page, `rel="next"`) {
		t.Error("second page is not the last 10")
	}
}
