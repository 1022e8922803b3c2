package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/redistest"
)

// A season rollover through the API and the pages, on one node and the Cluster: end a
// season, list it with its winners, read its top, pages, a player and its CSV, and the pages
// with the end's confirmation step.
func TestSeasonsThroughTheAPIAndPages(t *testing.T) {
	redistest.ForEachTopology(t, func(t *testing.T, rdb redis.UniversalClient) {
		s := newTestServer(t, "", rdb)
		b := fmt.Sprintf("cup-%d", time.Now().UnixNano())
		api := "/api/v1/boards/" + b
		for i, p := range []string{"ann", "bob", "cid"} {
			if status, body := s.postJSON(t, api+"/scores", fmt.Sprintf(`{"player":%q,"points":%d}`, p, 10*(i+1))); status != http.StatusOK {
				t.Fatalf("add: %d %s", status, body)
			}
		}
		status, body := s.postJSON(t, api+"/seasons", "")
		if status != http.StatusOK || !strings.Contains(body, `"number":1`) || !strings.Contains(body, `"players":3`) {
			t.Fatalf("end season: %d %s", status, body)
		}
		if _, body := s.get(t, api+"/top"); !strings.Contains(body, `"entries":[]`) {
			t.Fatalf("the board is not empty after its season ended: %s", body)
		}
		_, body = s.get(t, api+"/seasons")
		var list domain.SeasonList
		if err := json.Unmarshal([]byte(body), &list); err != nil || list.Current != 2 || len(list.Seasons) != 1 || list.Seasons[0].Winners[0].Player != "cid" {
			t.Fatalf("seasons: %s (%v)", body, err)
		}
		if status, body := s.get(t, api+"/seasons/1/top?n=2"); status != http.StatusOK || !strings.Contains(body, `"player":"bob"`) || strings.Contains(body, `"player":"ann"`) {
			t.Fatalf("season top: %d %s", status, body)
		}
		_, body = s.get(t, api+"/seasons/1/entries?limit=2")
		var page domain.Page
		if json.Unmarshal([]byte(body), &page); page.NextCursor == nil || page.Total != 3 {
			t.Fatalf("season entries: %s", body)
		}
		if _, body := s.get(t, api+"/seasons/1/entries?limit=2&cursor="+url.QueryEscape(*page.NextCursor)); !strings.Contains(body, `"player":"ann","score":10`) {
			t.Fatalf("season's second page: %s", body)
		}
		if status, body := s.get(t, api+"/seasons/1/players/bob"); status != http.StatusOK || !strings.Contains(body, `"rank":2`) {
			t.Fatalf("season player: %d %s", status, body)
		}
		if status, _ := s.get(t, api+"/seasons/2/top"); status != http.StatusNotFound {
			t.Fatalf("the current season as ended: %d", status)
		}
		if _, csv := s.get(t, api+"/seasons/1/export.csv"); csv != "rank,player,points\n1,cid,30\n2,bob,20\n3,ann,10\n" {
			t.Fatalf("season CSV: %q", csv)
		}
		// The pages: the list with its winners, the season's page, the end's confirmation.
		if _, p := s.get(t, "/boards/"+b+"/seasons"); !strings.Contains(p, `data-season="1"`) || !strings.Contains(p, "Season 2 · now") || !strings.Contains(p, ">cid<") {
			t.Fatalf("seasons page lacks season 1 or its winner")
		}
		if _, p := s.get(t, "/boards/"+b+"/seasons/1?player=bob"); !strings.Contains(p, "finished <strong>#2</strong>") || !strings.Contains(p, `data-player="ann"`) {
			t.Fatal("season page lacks the lookup or the players")
		}
		if _, p := s.get(t, "/boards/"+b+"/seasons/end"); !strings.Contains(p, "This ends season 2") || !strings.Contains(p, `data-testid="confirm-end-season"`) {
			t.Fatal("no confirmation step before ending a season")
		}
		status, _, h := s.postForm(t, "/boards/"+b+"/seasons/end", "/boards/"+b+"/seasons/end", url.Values{})
		if status != http.StatusSeeOther || h.Get("Location") != "/boards/"+b+"/seasons" {
			t.Fatalf("end by form: %d %q", status, h.Get("Location"))
		}
		if _, p := s.get(t, "/boards/"+b+"/seasons"); !strings.Contains(p, "Season 2 ended with 0 players") || !strings.Contains(p, `data-season="2"`) {
			t.Fatal("the form's end is not on the seasons page")
		}
	})
}

func TestSeasonSettingsForm(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	status, body, _ := s.postForm(t, "/boards/g/seasons", "/boards/g/seasons/settings", url.Values{"keep_seasons": {"-1"}, "season_every": {"weekly"}})
	if status != http.StatusBadRequest || !strings.Contains(body, "“Keep the last” must be a whole number of seasons") {
		t.Fatalf("bad keep: %d", status)
	}
	status, body, _ = s.postForm(t, "/boards/g/seasons", "/boards/g/seasons/settings", url.Values{"keep_seasons": {"4"}, "season_every": {"weekly"}, "season_zone": {"Nowhere/City"}})
	if status != http.StatusBadRequest || !strings.Contains(body, "“Time zone” must be an IANA time zone") {
		t.Fatalf("bad zone: %d", status)
	}
	status, _, h := s.postForm(t, "/boards/g/seasons", "/boards/g/seasons/settings", url.Values{"keep_seasons": {"4"}, "season_every": {"weekly"}, "season_zone": {"Europe/Berlin"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/boards/g/seasons" {
		t.Fatalf("save: %d %q", status, h.Get("Location"))
	}
	if _, b := s.get(t, "/api/v1/boards/g"); !strings.Contains(b, `"keep_seasons":4,"season_every":"weekly","season_zone":"Europe/Berlin"`) {
		t.Fatalf("saved: %s", b)
	}
	if _, p := s.get(t, "/boards/g/seasons"); !strings.Contains(p, "every Monday 00:00 (Europe/Berlin)") {
		t.Fatal("the page does not say when seasons end")
	}
}

// A period's reset: only that period's board goes, from the API and from the tab's
// confirmation step.
func TestResetOnePeriod(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	s := newTestServer(t, "", rdb)
	s.do(t, http.MethodPut, "/api/v1/boards/p", "application/json", `{"periods":["daily","weekly"]}`)
	s.postJSON(t, "/api/v1/boards/p/scores", `{"player":"ann","points":5}`)
	status, body, _ := s.do(t, http.MethodDelete, "/api/v1/boards/p?period=weekly", "", "")
	if status != http.StatusOK || body != `{"deleted_keys":1}`+"\n" {
		t.Fatalf("reset weekly: %d %s", status, body)
	}
	for path, want := range map[string]string{"/api/v1/boards/p/top": `"player":"ann"`, "/api/v1/boards/p/top?period=daily": `"player":"ann"`, "/api/v1/boards/p/top?period=weekly": `"entries":[]`} {
		if _, b := s.get(t, path); !strings.Contains(b, want) {
			t.Errorf("%s: %s; want %s", path, b, want)
		}
	}
	if _, p := s.get(t, "/boards/p?period=daily"); !strings.Contains(p, `data-testid="reset-period"`) {
		t.Fatal("the period's tab has no reset")
	}
	if _, p := s.get(t, "/boards/p/periods/daily/reset"); !strings.Contains(p, "The all-time board, the other periods") {
		t.Fatal("no confirmation step before a period's reset")
	}
	status, _, h := s.postForm(t, "/boards/p/periods/daily/reset", "/boards/p/periods/daily/reset", url.Values{})
	if status != http.StatusSeeOther || h.Get("Location") != "/boards/p?period=daily" {
		t.Fatalf("reset by form: %d %q", status, h.Get("Location"))
	}
	if _, b := s.get(t, "/api/v1/boards/p/top?period=daily"); !strings.Contains(b, `"entries":[]`) {
		t.Fatalf("daily after its reset: %s", b)
	}
	if _, b := s.get(t, "/api/v1/boards/p/top"); !strings.Contains(b, `"player":"ann"`) {
		t.Fatalf("all time after a period's reset: %s", b)
	}
}

// The add-points form says where points count, and on a board without period boards lets
// the admin start them with the add.
func TestAddPointsFormStartsPeriods(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	if _, p := s.get(t, "/boards/fresh"); !strings.Contains(p, "Period boards are off: these points count on the all-time board only") {
		t.Fatal("the add form does not say period boards are off")
	}
	status, _, _ := s.postForm(t, "/boards/fresh", "/boards/fresh/points", url.Values{"player": {"ann"}, "points": {"3"}, "periods": {"daily", "monthly"}})
	if status != http.StatusSeeOther {
		t.Fatalf("add: %d", status)
	}
	if _, b := s.get(t, "/api/v1/boards/fresh/top?period=monthly"); !strings.Contains(b, `"player":"ann"`) {
		t.Fatalf("the monthly board did not count the add that started it: %s", b)
	}
	if _, p := s.get(t, "/boards/fresh"); !strings.Contains(p, "Counts on: all time, today, this month.") {
		t.Fatal("the add form does not say which boards count")
	}
	status, body, _ := s.postForm(t, "/boards/other", "/boards/other/points", url.Values{"player": {"ann"}, "points": {"3"}, "periods": {"hourly"}})
	if status != http.StatusBadRequest || !strings.Contains(body, "“Also count on period boards” may hold daily, weekly and monthly") {
		t.Fatalf("a bad period: %d", status)
	}
}

// The board page and the API warn of scores in another encoding, and the confirmed fix saves
// the encoding most misfits fit and rewrites them.
func TestEncodingWarningAndFix(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	s := newTestServer(t, "", rdb)
	s.postJSON(t, "/api/v1/boards/mixed/scores", `{"player":"own","points":10}`)
	score, _ := domain.TieBreakFirstReached.Encode(12, time.Now())
	rdb.ZAdd(ctx, "leaderboard:mixed", redis.Z{Score: score, Member: "svc"})
	status, body := s.get(t, "/api/v1/boards/mixed/encoding")
	if status != http.StatusOK || !strings.Contains(body, `"misfits":1`) || !strings.Contains(body, `"likely":"first_reached"`) || !strings.Contains(body, `"player":"svc"`) {
		t.Fatalf("check: %d %s", status, body)
	}
	_, p := s.get(t, "/boards/mixed")
	if !strings.Contains(p, `data-testid="encoding-warning"`) || !strings.Contains(p, "/boards/mixed/encoding/fix?tie_break=first_reached") {
		t.Fatal("the board page does not warn with the fix")
	}
	if _, p := s.get(t, "/boards/mixed/encoding/fix?tie_break=first_reached"); !strings.Contains(p, `data-testid="confirm-fix-encoding"`) {
		t.Fatal("no confirmation step before the fix")
	}
	status, _, h := s.postForm(t, "/boards/mixed/encoding/fix?tie_break=first_reached", "/boards/mixed/encoding", url.Values{"tie_break": {"first_reached"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/boards/mixed" {
		t.Fatalf("fix: %d %q", status, h.Get("Location"))
	}
	if _, body := s.get(t, "/api/v1/boards/mixed/encoding"); !strings.Contains(body, `"misfits":0`) || !strings.Contains(body, `"tie_break":"first_reached"`) {
		t.Fatalf("after the fix: %s", body)
	}
	if _, p := s.get(t, "/boards/mixed"); strings.Contains(p, `data-testid="encoding-warning"`) || !strings.Contains(p, "1 score rewritten") {
		t.Fatal("the board still warns after the fix, or does not say what it did")
	}
	status, body, _ = s.do(t, http.MethodPost, "/api/v1/boards/mixed/encoding", "application/json", `{"tie_break":"none"}`)
	if status != http.StatusOK || !strings.Contains(body, `"rewritten":2`) {
		t.Fatalf("fix to none by the API: %d %s", status, body)
	}
}

// The handlers pass the season number, cursor and limit through, and answer the service's
// errors with their status (fakes: no Redis).
func TestSeasonHandlersPassThrough(t *testing.T) {
	t.Parallel()
	f := &fakes{}
	var got []any
	f.Leaderboards.SeasonEntriesFn = func(_ context.Context, board string, n int64, cursor string, limit int) (domain.Page, error) {
		got = []any{board, n, cursor, limit}
		return domain.Page{Entries: []domain.Entry{}}, nil
	}
	f.Leaderboards.EndSeasonFn = func(context.Context, string) (domain.Season, error) {
		return domain.Season{}, domain.Errorf(domain.ECONFLICT, "ended meanwhile")
	}
	s := newFakeServer(t, "", f, nil)
	if status, _ := s.get(t, "/api/v1/boards/b/seasons/7/entries?limit=3&cursor=c"); status != http.StatusOK || fmt.Sprint(got) != "[b 7 c 3]" {
		t.Fatalf("entries: %d %v", status, got)
	}
	if status, body := s.postJSON(t, "/api/v1/boards/b/seasons", ""); status != http.StatusConflict || !strings.Contains(body, "ended meanwhile") {
		t.Fatalf("a conflict: %d %s", status, body)
	}
	if status, _ := s.get(t, "/api/v1/boards/b/seasons/1099511627777/top"); status != http.StatusBadRequest || f.Leaderboards.SeasonTopInvoked.Load() {
		t.Fatalf("a season beyond the range reached the service: %d", status)
	}
}

// A period parameter always names one period: an empty one, "all" or any other value is a 400
// naming period and deletes nothing (a script's ?period=$P with an empty $P must not wipe the
// board); the page routes refuse "all" alike. Only a DELETE without the parameter resets the
// whole board.
func TestResetRefusesAnEmptyOrAllPeriod(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	s := newTestServer(t, "", rdb)
	s.do(t, http.MethodPut, "/api/v1/boards/p", "application/json", `{"periods":["daily"]}`)
	s.postJSON(t, "/api/v1/boards/p/scores", `{"player":"ann","points":5}`)
	for _, q := range []string{"?period=", "?period", "?period=all", "?period=ALL", "?period=hourly", "?period=%20daily"} {
		status, body, _ := s.do(t, http.MethodDelete, "/api/v1/boards/p"+q, "", "")
		var e struct {
			Error struct{ Code, Field, Message string }
		}
		_ = json.Unmarshal([]byte(body), &e)
		if status != http.StatusBadRequest || e.Error.Field != "period" || !strings.Contains(e.Error.Message, "daily, weekly or monthly") {
			t.Errorf("DELETE %s: %d %s; want 400 naming period", q, status, body)
		}
	}
	for _, path := range []string{"/api/v1/boards/p/top", "/api/v1/boards/p/top?period=daily"} {
		if _, b := s.get(t, path); !strings.Contains(b, `"player":"ann"`) {
			t.Fatalf("%s after refused resets: %s", path, b)
		}
	}
	if status, _ := s.get(t, "/boards/p/periods/all/reset"); status != http.StatusBadRequest {
		t.Errorf("the confirmation step of period all: %d", status)
	}
	if status, _, _ := s.postForm(t, "/boards/p", "/boards/p/periods/all/reset", url.Values{}); status != http.StatusBadRequest && status != http.StatusSeeOther {
		t.Errorf("the form reset of period all: %d", status)
	}
	if _, b := s.get(t, "/api/v1/boards/p/top"); !strings.Contains(b, `"player":"ann"`) {
		t.Fatalf("the form reset of period all deleted the board: %s", b)
	}
	status, body, _ := s.do(t, http.MethodDelete, "/api/v1/boards/p", "", "")
	if status != http.StatusOK || !strings.Contains(body, `"deleted_keys":`) {
		t.Fatalf("DELETE without period: %d %s", status, body)
	}
	if _, b := s.get(t, "/api/v1/boards/p/top"); !strings.Contains(b, `"entries":[]`) {
		t.Fatalf("after the whole reset: %s", b)
	}
}

// A board whose scheduled season end failed at the rollover's last round says so on its page
// and, shortly, on the overview; the other boards say nothing.
func TestRolloverFailureIsShown(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	s := newTestServer(t, "", rdb)
	for _, b := range []string{"broken", "fine"} {
		s.postJSON(t, "/api/v1/boards/"+b+"/scores", `{"player":"ann","points":5}`)
	}
	rdb.HSet(context.Background(), redisrepo.DefaultKeys.SeasonRolloverFailures(), "broken", "2026-12-04 17:00:00 UTC: the seasons hash lost its count")
	if _, p := s.get(t, "/boards/broken"); !strings.Contains(p, `data-testid="rollover-failure"`) || !strings.Contains(p, "the seasons hash lost its count") {
		t.Error("the board's page does not say its season end failed")
	}
	if _, p := s.get(t, "/boards/fine"); strings.Contains(p, `data-testid="rollover-failure"`) {
		t.Error("a healthy board's page shows a rollover failure")
	}
	_, p := s.get(t, "/")
	if strings.Count(p, `data-testid="rollover-failure"`) != 1 || !strings.Contains(p, "Scheduled season end failed") {
		t.Error("the overview does not note the one failed board")
	}
}
