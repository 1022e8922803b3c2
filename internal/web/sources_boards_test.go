package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// adoptedBoardFakes is a sources fake with one adopted board, "daily", of 3 players at
// game:rank:20261201, paged two at a time.
func adoptedBoardFakes() *fakes {
	f := &fakes{}
	src := domain.Source{Name: "daily", Kind: domain.SourceBoard, Key: "{game}:rank:{yyyymmdd}", Encoding: "first_reached_e10", Zone: "Asia/Shanghai"}
	all := []domain.Entry{{Rank: 1, Player: "ann", Score: 30}, {Rank: 2, Player: "bob", Score: 20}, {Rank: 3, Player: "cy", Score: 20}}
	f.Sources.SourcesFn = func(context.Context) ([]domain.Source, error) { return []domain.Source{src}, nil }
	f.Sources.SourceViewFn = func(_ context.Context, name string) (domain.SourceView, error) {
		if name != "daily" {
			return domain.SourceView{}, domain.Errorf(domain.ENOTFOUND, "there is no adopted source %q", name)
		}
		return domain.SourceView{Source: src, Key: "{game}:rank:20261201", Entries: all, Count: 3}, nil
	}
	f.Sources.SourceViewsFn = func(ctx context.Context, kinds ...domain.SourceKind) ([]domain.SourceView, error) {
		if len(kinds) > 0 && !slices.Contains(kinds, domain.SourceBoard) {
			return nil, nil
		}
		v, err := f.Sources.SourceViewFn(ctx, "daily")
		return []domain.SourceView{v}, err
	}
	f.Sources.SourceEntriesFn = func(_ context.Context, name, after string, limit int) (domain.Page, error) {
		if after == "" {
			next := "c2"
			return domain.Page{Entries: all[:2], NextCursor: &next, Total: 3}, nil
		}
		if after != "c2" {
			return domain.Page{}, domain.Errorf(domain.EINVALID, "cursor must be a next_cursor this API returned")
		}
		return domain.Page{Entries: all[2:], Total: 3}, nil
	}
	f.Sources.SourceEntriesAtFn = func(_ context.Context, name string, rank int64, limit int) (domain.Page, error) {
		if rank > int64(len(all)) {
			return domain.Page{Total: 3}, nil
		}
		return domain.Page{Entries: all[rank-1:], Total: 3}, nil
	}
	f.Sources.SourcePlayerFn = func(_ context.Context, name, player string) (domain.Entry, error) {
		for _, e := range all {
			if e.Player == player {
				return e, nil
			}
		}
		return domain.Entry{}, domain.Errorf(domain.ENOTFOUND, "player %q is not on source %q", player, name)
	}
	f.Sources.SourceAroundFn = func(_ context.Context, name, player string, n int) ([]domain.Entry, error) {
		if player != "bob" {
			return nil, domain.Errorf(domain.ENOTFOUND, "player %q is not on source %q", player, name)
		}
		return all, nil
	}
	return f
}

func TestAPIAdoptedBoardEntriesAndPlayers(t *testing.T) {
	t.Parallel()
	f := adoptedBoardFakes()
	s := newFakeServer(t, "", f, nil)
	status, b := s.get(t, "/api/v1/sources/daily/entries?limit=2")
	var page struct {
		Entries []domain.Entry
		Next    *string `json:"next_cursor"`
		Total   int64
	}
	if json.Unmarshal([]byte(b), &page); status != http.StatusOK || len(page.Entries) != 2 || page.Next == nil || page.Total != 3 {
		t.Fatalf("first page: %d %s", status, b)
	}
	if status, b = s.get(t, "/api/v1/sources/daily/entries?cursor="+*page.Next); status != http.StatusOK || !strings.Contains(b, `"player":"cy"`) || !strings.Contains(b, `"next_cursor":null`) {
		t.Errorf("second page: %d %s", status, b)
	}
	if status, b = s.get(t, "/api/v1/sources/daily/players/bob"); status != http.StatusOK || b != `{"rank":2,"player":"bob","score":20}`+"\n" {
		t.Errorf("player: %d %q", status, b)
	}
	if status, b = s.get(t, "/api/v1/sources/daily/players/bob/around?n=1"); status != http.StatusOK || !strings.Contains(b, `"entries":[`) {
		t.Errorf("around: %d %s", status, b)
	}
	if status, _ = s.get(t, "/api/v1/sources/daily/players/zed"); status != http.StatusNotFound {
		t.Errorf("missing player: %d", status)
	}
	if status, _ = s.get(t, "/api/v1/sources/daily/entries?cursor=junk"); status != http.StatusBadRequest {
		t.Errorf("bad cursor: %d", status)
	}
	f.Sources.SourceEntriesInvoked.Store(false)
	for _, q := range []string{"limit=0", "limit=1001", "limit=1.5", "limit=%2B5"} {
		if status, b = s.get(t, "/api/v1/sources/daily/entries?"+q); status != http.StatusBadRequest || !strings.Contains(b, `"field":"limit"`) {
			t.Errorf("%s: %d %s", q, status, b)
		}
	}
	if f.Sources.SourceEntriesInvoked.Load() {
		t.Error("a bad limit reached the service")
	}
}

// The adopted board's page: its entries as a board's, marked as another service's, with
// "Browse all", "Find a player" and the paging pages.
func TestAdoptedBoardPage(t *testing.T) {
	t.Parallel()
	s := newFakeServer(t, "", adoptedBoardFakes(), nil)
	status, b := s.get(t, "/sources/daily")
	for _, want := range []string{`data-testid="foreign"`, `data-player="ann"`, `data-testid="browse-all"`, `href="/sources/daily/entries"`, `Asia/Shanghai`} {
		if status != http.StatusOK || !strings.Contains(b, want) {
			t.Errorf("source page: %d, missing %s", status, want)
		}
	}
	if _, b = s.get(t, "/sources/daily?player=bob"); !strings.Contains(b, `is <strong>#2</strong> with <strong>20</strong> points`) {
		t.Errorf("find bob: %s", between(b, `data-testid="lookup"`, "</section>"))
	}
	if _, b = s.get(t, "/sources/daily?player=zed"); !strings.Contains(b, "has no score on this board today") {
		t.Error("find a missing player")
	}
	status, b = s.get(t, "/sources/daily/entries")
	if status != http.StatusOK || !strings.Contains(b, `data-player="bob"`) || !strings.Contains(b, `href="/sources/daily/entries?cursor=c2"`) {
		t.Errorf("browse: %d", status)
	}
	if _, b = s.get(t, "/sources/daily/entries?cursor=c2"); !strings.Contains(b, `data-player="cy"`) || strings.Contains(b, `data-testid="entries-next"`) {
		t.Error("the last page")
	}
	if status, _ = s.get(t, "/sources/daily/entries?cursor=junk"); status != http.StatusBadRequest {
		t.Errorf("a bad cursor: %d", status)
	}
	if status, _ = s.get(t, "/sources/nope/entries"); status != http.StatusNotFound {
		t.Errorf("no such source: %d", status)
	}
}

// between is the part of s after the first from, up to the next to (for messages).
func between(s, from, to string) string {
	_, s, _ = strings.Cut(s, from)
	s, _, _ = strings.Cut(s, to)
	return s
}

// The zh article's layouts adopted through the API and the form, end to end on Redis: a
// hash-tagged daily board dated in Asia/Shanghai with its max_ts, and a token bucket in the
// service's fields.
func TestAdoptZhLayouts(t *testing.T) {
	t.Parallel()
	// A manual clock: a bucket refilling 0.5 tokens a second must not gain half a token when
	// the three checks straddle a second.
	rdb := redistest.DB(t)
	s := serveWiring(t, rdb, newTestWiring(t, rdb, "", wiringOptions{clock: domain.NewManualClock(testNow)}))
	status, b, _ := s.do(t, http.MethodPut, "/api/v1/sources/cn", "application/json",
		`{"kind":"board","key":"{game}:rank:{yyyymmdd}","encoding":"first_reached_e10","zone":"Asia/Shanghai","max_ts":20000000000}`)
	if status != http.StatusOK || !strings.Contains(b, `"zone":"Asia/Shanghai"`) || !strings.Contains(b, `"max_ts":20000000000`) {
		t.Fatalf("adopt the board: %d %s", status, b)
	}
	_, b = s.get(t, "/api/v1/sources/cn")
	var v domain.SourceView
	json.Unmarshal([]byte(b), &v)
	s.rdb.ZAdd(context.Background(), v.Key, redisZ(float64(7*domain.E10Scale+20_000_000_000-1_800_000_000), "ann"))
	if status, b = s.get(t, "/api/v1/sources/cn/players/ann"); status != http.StatusOK || !strings.Contains(b, `"score":7`) {
		t.Errorf("ann on %s: %d %s", v.Key, status, b)
	}
	status, b, _ = s.do(t, http.MethodPut, "/api/v1/sources/tb", "application/json",
		`{"kind":"limiter","key":"limit:tb:{{client}}","encoding":"token_bucket","limit":2,"rate_per_s":0.5,"tokens_field":"tokens","time_field":"last_refill","time_unit":"s"}`)
	if status != http.StatusOK {
		t.Fatalf("adopt the bucket: %d %s", status, b)
	}
	for i, want := range []bool{true, true, false} {
		if _, b := s.postJSON(t, "/api/v1/sources/tb/check", `{"client":"u1"}`); !strings.Contains(b, fmt.Sprintf(`"allowed":%v`, want)) {
			t.Errorf("check %d: %s", i, b)
		}
	}
	if h := s.rdb.HGetAll(context.Background(), "limit:tb:{u1}").Val(); h["tokens"] != "0" || len(h["last_refill"]) != 10 {
		t.Errorf("the bucket in the service's fields: %v", h)
	}
	status, _, h := s.postForm(t, "/sources", "/sources", url.Values{"name": {"tb2"}, "kind": {"limiter"}, "key": {"bucket:{client}"}, "encoding": {"token_bucket"},
		"limit": {"5"}, "rate_per_s": {"1"}, "tokens_field": {"令牌"}, "time_field": {"ts"}, "time_unit": {"ms"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/sources/tb2" {
		t.Errorf("adopt a bucket from the form: %d", status)
	}
	status, b, _ = s.postForm(t, "/sources", "/sources", url.Values{"name": {"bad"}, "kind": {"board"}, "key": {"game:rank:{yyyymmdd}"}, "encoding": {"none"}, "zone": {"Mars/Base"}})
	if status != http.StatusBadRequest || !strings.Contains(b, "IANA time zone") {
		t.Errorf("a bad zone in the form: %d", status)
	}
}

// Adopted sources appear in the lists of their kind and in the overview, marked as another
// service's; a kind's list shows none of the other kinds.
func TestAdoptedInListsAndOverview(t *testing.T) {
	t.Parallel()
	s := newFakeServer(t, "", adoptedBoardFakes(), nil)
	for path, want := range map[string]bool{"/boards": true, "/": true, "/queues": false, "/limiters": false} {
		status, b := s.get(t, path)
		list := between(b, `data-testid="adopted-list"`, "</section>")
		if status != http.StatusOK || (list != "") != want || (want && (!strings.Contains(list, `href="/sources/daily"`) ||
			!strings.Contains(list, "Written by another service") || !strings.Contains(list, "{game}:rank:20261201") || !strings.Contains(list, "3 players"))) {
			t.Errorf("%s: %d, adopted list %q (want one: %v)", path, status, list, want)
		}
	}
}

// /sources offers the dated layouts discovery found, each adopted in one click.
func TestSourceSuggestionsAdoptInOneClick(t *testing.T) {
	t.Parallel()
	f := &fakes{}
	f.Sources.SourceSuggestionsFn = func(context.Context) ([]domain.SourceSuggestion, error) {
		return []domain.SourceSuggestion{{Key: "game:rank:{yyyymmdd}", Example: "game:rank:20261201", Keys: 41}}, nil
	}
	var saved domain.Source
	f.Sources.SaveSourceFn = func(_ context.Context, src domain.Source) (domain.Source, error) { saved = src; return src, nil }
	s := newFakeServer(t, "", f, nil)
	_, b := s.get(t, "/sources")
	sg := between(b, `data-testid="suggestions"`, "</section>")
	for _, want := range []string{"game:rank:20261201", "40 keys like it", `name="key" value="game:rank:{yyyymmdd}"`, `name="name" value="game:rank"`, `value="first_reached_e10" selected`} {
		if !strings.Contains(sg, want) {
			t.Errorf("suggestion without %s: %s", want, sg)
		}
	}
	status, _, h := s.postForm(t, "/sources", "/sources", url.Values{"name": {"game:rank"}, "kind": {"board"}, "key": {"game:rank:{yyyymmdd}"}, "encoding": {"first_reached_e10"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/sources/game:rank" || saved.Key != "game:rank:{yyyymmdd}" || saved.Encoding != "first_reached_e10" {
		t.Errorf("one click: %d %v, saved %+v", status, h, saved)
	}
}

// An adopted board's entries page has a zpulse board's: the total, a jump to a rank with a
// previous page, the CSV export; its lookup follows the live panel. A bad rank is refused
// before it reaches the service.
func TestAdoptedBoardPageParity(t *testing.T) {
	t.Parallel()
	f := adoptedBoardFakes()
	s := newFakeServer(t, "", f, nil)
	status, b := s.get(t, "/sources/daily/entries?rank=2")
	for _, want := range []string{`data-testid="entries-total">3`, `data-player="bob"`, `href="/sources/daily/entries?rank=1" rel="prev"`,
		`action="/sources/daily/entries"`, `name="rank"`, `href="/sources/daily/export.csv"`} {
		if status != http.StatusOK || !strings.Contains(b, want) {
			t.Errorf("rank 2: %d, missing %s", status, want)
		}
	}
	if strings.Contains(between(b, `<tbody`, `</tbody>`), `data-player="ann"`) {
		t.Error("rank 2 shows rank 1")
	}
	if _, b = s.get(t, "/sources/daily/entries?rank=9"); !strings.Contains(b, "No more players") {
		t.Error("past the end")
	}
	f.Sources.SourceEntriesAtInvoked.Store(false)
	for _, q := range []string{"rank=0", "rank=x", "rank=1.5", "rank=%2B2"} {
		if status, _ = s.get(t, "/sources/daily/entries?"+q); status != http.StatusBadRequest {
			t.Errorf("%s: %d", q, status)
		}
	}
	if f.Sources.SourceEntriesAtInvoked.Load() {
		t.Error("a bad rank reached the service")
	}
	_, b = s.get(t, "/sources/daily?player=bob")
	if !strings.Contains(b, `hx-get="/sources/daily?player=bob"`) || !strings.Contains(b, "data-follows-live") || !strings.Contains(b, `data-testid="source-export"`) {
		t.Errorf("the lookup does not follow the live panel: %s", between(b, `id="player-lookup"`, "</section>"))
	}
	if _, b = s.get(t, "/sources/daily"); strings.Contains(b, "data-follows-live") {
		t.Error("a lookup follows without a player")
	}
}

// The CSV export of an adopted board pages through every entry, guarded against formulas.
func TestAdoptedBoardExport(t *testing.T) {
	t.Parallel()
	f := adoptedBoardFakes()
	f.Sources.SourceEntriesFn = func(_ context.Context, name, after string, limit int) (domain.Page, error) {
		if limit != domain.MaxPageLimit {
			t.Errorf("export pages by %d", limit)
		}
		if after == "" {
			next := "c1"
			return domain.Page{Entries: []domain.Entry{{Rank: 1, Player: "=HYPERLINK(1)", Score: 9}}, NextCursor: &next, Total: 2}, nil
		}
		return domain.Page{Entries: []domain.Entry{{Rank: 2, Player: "bob", Score: 3}}, Total: 2}, nil
	}
	s := newFakeServer(t, "", f, nil)
	for _, path := range []string{"/api/v1/sources/daily/export.csv", "/sources/daily/export.csv"} {
		status, b := s.get(t, path)
		if status != http.StatusOK || b != "rank,player,points\n1,'=HYPERLINK(1),9\n2,bob,3\n" {
			t.Errorf("%s: %d %q", path, status, b)
		}
	}
	f.Sources.SourceEntriesFn = func(context.Context, string, string, int) (domain.Page, error) {
		return domain.Page{}, domain.Errorf(domain.EINVALID, `source "rl" is a limiter: only boards have entries and players`)
	}
	if status, b := s.get(t, "/api/v1/sources/rl/export.csv"); status != http.StatusBadRequest || !strings.Contains(b, "only boards") {
		t.Errorf("a limiter's export: %d %s", status, b)
	}
}

// On Redis: an adopted board jumped to a rank, paged back, and exported whole.
func TestAdoptedBoardRankAndExportOnRedis(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	if status, b, _ := s.do(t, http.MethodPut, "/api/v1/sources/g", "application/json", `{"kind":"board","key":"game:score:all","encoding":"none"}`); status != http.StatusOK {
		t.Fatalf("adopt: %d %s", status, b)
	}
	ctx := context.Background()
	for i := range 60 {
		s.rdb.ZAdd(ctx, "game:score:all", redisZ(float64(1000-i), fmt.Sprintf("p%02d", i)))
	}
	s.rdb.ZAdd(ctx, "game:score:all", redisZ(1, "=1+1"))
	status, b := s.get(t, "/sources/g/entries?rank=52")
	if status != http.StatusOK || !strings.Contains(b, `data-testid="entries-total">61`) || !strings.Contains(b, `data-player="p51"`) ||
		strings.Contains(b, `data-player="p50"`) || !strings.Contains(b, `href="/sources/g/entries?rank=2" rel="prev"`) || strings.Contains(b, `data-testid="entries-next"`) {
		t.Errorf("rank 52: %d %s", status, between(b, "<main", "</main>"))
	}
	status, b = s.get(t, "/api/v1/sources/g/export.csv")
	lines := strings.Split(strings.TrimSuffix(b, "\n"), "\n")
	if status != http.StatusOK || len(lines) != 62 || lines[1] != "1,p00,1000" || lines[61] != "61,'=1+1,1" {
		t.Errorf("export: %d, %d lines, %q … %q", status, len(lines), lines[1], lines[len(lines)-1])
	}
}

// An adopted board's page is laid out as a zpulse board's (issue 34.3): the player lookup
// follows the top players in the wide column, not the side column beside them.
func TestAdoptedBoardPageLayout(t *testing.T) {
	t.Parallel()
	s := newFakeServer(t, "", adoptedBoardFakes(), nil)
	_, b := s.get(t, "/sources/daily")
	wide := strings.Index(b, "lg:col-span-2")
	panel, lookup, about := strings.Index(b, `id="source-daily"`), strings.Index(b, `id="player-lookup"`), strings.Index(b, `aria-label="About this source"`)
	if wide < 0 || panel < wide || lookup < panel || about < lookup {
		t.Fatalf("wide column %d, live panel %d, lookup %d, about %d", wide, panel, lookup, about)
	}
	// The side column opens after the lookup: nothing between the live panel and the lookup
	// closes the wide column and opens another.
	if between := b[panel:lookup]; strings.Contains(between, `<div class="space-y-6`) {
		t.Error("the lookup is in the side column, not under the top players")
	}
}
