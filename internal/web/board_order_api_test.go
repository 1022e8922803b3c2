package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/redistest"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

// TestAPIBoardOrderAndOperator: the settings take sort_order and operator (400 naming the
// field for anything else), GET returns them, an ascending best board keeps each player's
// lowest and ranks it first in top, entries, around, a player's rank and the CSV export, and
// a change on a board with entries needs "confirm": true (409 naming confirm first).
func TestAPIBoardOrderAndOperator(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	for body, field := range map[string]string{
		`{"sort_order":"up"}`:                      "sort_order",
		`{"sort_order":""}`:                        "sort_order",
		`{"operator":"max"}`:                       "operator",
		`{"operator":""}`:                          "operator",
		`{"sort_order":"ASC"}`:                     "sort_order",
		`{"operator":"best ", "sort_order":"asc"}`: "operator",
	} {
		status, b, _ := s.do(t, http.MethodPut, "/api/v1/boards/race", "application/json", body)
		var e httpio.APIError
		json.Unmarshal([]byte(b), &e)
		if status != http.StatusBadRequest || e.Error.Field != field {
			t.Errorf("%s: %d %s; want 400 naming %s", body, status, b, field)
		}
	}
	status, b, _ := s.do(t, http.MethodPut, "/api/v1/boards/race", "application/json", `{"sort_order":"asc","operator":"best","tie_break":"first_reached"}`)
	if status != http.StatusOK || !strings.Contains(b, `"sort_order":"asc","operator":"best"`) {
		t.Fatalf("put: %d %s", status, b)
	}
	if _, b := s.get(t, "/api/v1/boards/race"); !strings.Contains(b, `"sort_order":"asc","operator":"best"`) {
		t.Errorf("get: %s", b)
	}
	for _, w := range []string{`"ann",61000`, `"bob",59000`, `"ann",60500`, `"cyd",70000`, `"bob",65000`} {
		player, ms, _ := strings.Cut(w, ",")
		if status, b := s.postJSON(t, "/api/v1/boards/race/scores", fmt.Sprintf(`{"player":%s,"points":%s}`, player, ms)); status != http.StatusOK {
			t.Fatalf("submit %s: %d %s", w, status, b)
		}
	}
	if _, b := s.get(t, "/api/v1/boards/race/top?n=3"); !strings.Contains(b, `"entries":[{"rank":1,"player":"bob","score":59000},{"rank":2,"player":"ann","score":60500},{"rank":3,"player":"cyd","score":70000}]`) {
		t.Errorf("top: %s", b)
	}
	if _, b := s.get(t, "/api/v1/boards/race/players/ann"); b != `{"rank":2,"player":"ann","score":60500}`+"\n" {
		t.Errorf("player: %s", b)
	}
	if _, b := s.get(t, "/api/v1/boards/race/players/cyd/around?n=1"); b != `{"entries":[{"rank":2,"player":"ann","score":60500},{"rank":3,"player":"cyd","score":70000}]}`+"\n" {
		t.Errorf("around: %s", b)
	}
	_, b = s.get(t, "/api/v1/boards/race/entries?limit=2")
	var page struct {
		Entries []struct{ Player string }
		Next    *string `json:"next_cursor"`
	}
	if json.Unmarshal([]byte(b), &page); len(page.Entries) != 2 || page.Entries[0].Player != "bob" || page.Next == nil {
		t.Fatalf("entries: %s", b)
	}
	if _, b := s.get(t, "/api/v1/boards/race/entries?limit=2&cursor="+*page.Next); !strings.Contains(b, `"player":"cyd","score":70000`) || strings.Contains(b, "bob") {
		t.Errorf("entries, page 2: %s", b)
	}
	if status, b := s.get(t, "/boards/race/export.csv"); status != http.StatusOK || !strings.Contains(b, "1,bob,59000") || strings.Index(b, "bob") > strings.Index(b, "cyd") {
		t.Errorf("csv: %d %s", status, b)
	}

	status, b, _ = s.do(t, http.MethodPut, "/api/v1/boards/race", "application/json", `{"sort_order":"desc"}`)
	var e httpio.APIError
	json.Unmarshal([]byte(b), &e)
	if status != http.StatusConflict || e.Error.Field != "confirm" || !strings.Contains(e.Error.Message, "highest first") {
		t.Errorf("unconfirmed change: %d %s; want 409 naming confirm", status, b)
	}
	if _, b := s.get(t, "/api/v1/boards/race"); !strings.Contains(b, `"sort_order":"asc"`) {
		t.Errorf("a refused change changed the board: %s", b)
	}
	if status, b, _ := s.do(t, http.MethodPut, "/api/v1/boards/race", "application/json", `{"operator":"best","sort_order":"asc","retention_days":5}`); status != http.StatusOK {
		t.Errorf("the same values need no confirmation: %d %s", status, b)
	}
	if status, b, _ := s.do(t, http.MethodPut, "/api/v1/boards/race", "application/json", `{"sort_order":"desc","operator":"set","confirm":true}`); status != http.StatusOK || !strings.Contains(b, `"sort_order":"desc","operator":"set"`) {
		t.Errorf("confirmed change: %d %s", status, b)
	}
	if _, b := s.get(t, "/api/v1/boards/race/top?n=1"); !strings.Contains(b, `"player":"cyd"`) {
		t.Errorf("top after the change: %s", b)
	}
}

// TestSettingsFormConfirmsARankingChange: the settings form saves the order and operator of an
// empty board at once; on a board with players it goes to a confirmation page saying what
// changes, whose button saves. The board page then says it in plain words and its form reads
// "Submit a score".
func TestSettingsFormConfirmsARankingChange(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	form := url.Values{"tie_break": {"first_reached"}, "retention_days": {"90"}, "sort_order": {"asc"}, "operator": {"best"}}
	if status, _, h := s.postForm(t, "/boards/empty", "/boards/empty/settings", form); status != http.StatusSeeOther || h.Get("Location") != "/boards/empty" {
		t.Fatalf("an empty board's change: %d %q", status, h.Get("Location"))
	}
	_, page := s.get(t, "/boards/empty")
	for _, want := range []string{"Lower is better · best time kept", "Submit a score"} {
		if !strings.Contains(page, want) {
			t.Errorf("the board page does not say %q", want)
		}
	}
	if status, b, _ := s.postForm(t, "/boards/empty", "/boards/empty/settings", url.Values{"tie_break": {"none"}, "retention_days": {"90"}, "sort_order": {"sideways"}}); status != http.StatusBadRequest || !strings.Contains(b, "“Order” must be &#34;desc&#34; or &#34;asc&#34;") {
		t.Errorf("a bad order: %d %s", status, regexpFind(t, b, `error-text"[^>]*>([^<]*)<`))
	}

	s.postJSON(t, "/api/v1/boards/g/scores", `{"player":"ann","points":5}`)
	status, _, h := s.postForm(t, "/boards/g", "/boards/g/settings", form)
	loc := h.Get("Location")
	if status != http.StatusSeeOther || !strings.HasPrefix(loc, "/boards/g/settings/confirm?") {
		t.Fatalf("a change on a board with players: %d %q; want the confirmation", status, loc)
	}
	if _, b := s.get(t, "/api/v1/boards/g"); !strings.Contains(b, `"sort_order":"desc","operator":"incr"`) {
		t.Errorf("saved before the confirmation: %s", b)
	}
	_, confirm := s.get(t, loc)
	for _, want := range []string{"Higher is better · points add up", "Lower is better · best time kept", "its 1 players will rank lowest first", `name="confirm" value="yes"`, `data-testid="confirm-ranking"`} {
		if !strings.Contains(confirm, want) {
			t.Errorf("the confirmation does not say %q", want)
		}
	}
	form.Set("confirm", "yes")
	if status, _, _ := s.postForm(t, loc, "/boards/g/settings", form); status != http.StatusSeeOther {
		t.Fatalf("confirmed: %d", status)
	}
	if _, b := s.get(t, "/api/v1/boards/g"); !strings.Contains(b, `"sort_order":"asc","operator":"best"`) {
		t.Errorf("not saved after the confirmation: %s", b)
	}
}

// TestAdoptedBoardDeclaredAscending: an adopted board another service writes with the lowest
// first reads lowest first everywhere (its view, entries, a player's rank, around, CSV); a bad
// sort_order is a 400 naming it; the form's box declares it too.
func TestAdoptedBoardDeclaredAscending(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	s := newTestServer(t, "", rdb)
	if status, b, _ := s.do(t, http.MethodPut, "/api/v1/sources/laps", "application/json", `{"kind":"board","key":"race:laps","encoding":"none","sort_order":"up"}`); status != http.StatusBadRequest || !strings.Contains(b, `"field":"sort_order"`) {
		t.Errorf("a bad order: %d %s", status, b)
	}
	status, b, _ := s.do(t, http.MethodPut, "/api/v1/sources/laps", "application/json", `{"kind":"board","key":"race:laps","encoding":"none","sort_order":"asc"}`)
	if status != http.StatusOK || !strings.Contains(b, `"sort_order":"asc"`) {
		t.Fatalf("adopt: %d %s", status, b)
	}
	ctx := context.Background()
	rdb.ZAdd(ctx, "race:laps", redisZ(61250, "ann"), redisZ(59800, "bob"), redisZ(70100, "cyd"))
	if _, b := s.get(t, "/api/v1/sources/laps"); !strings.Contains(b, `"entries":[{"rank":1,"player":"bob","score":59800},{"rank":2,"player":"ann","score":61250},{"rank":3,"player":"cyd","score":70100}]`) {
		t.Errorf("view: %s", b)
	}
	if _, b := s.get(t, "/api/v1/sources/laps/entries?limit=1"); !strings.Contains(b, `"player":"bob"`) {
		t.Errorf("entries: %s", b)
	}
	if _, b := s.get(t, "/api/v1/sources/laps/players/cyd"); !strings.Contains(b, `"rank":3`) {
		t.Errorf("player: %s", b)
	}
	if _, b := s.get(t, "/api/v1/sources/laps/players/bob/around?n=1"); !strings.Contains(b, `[{"rank":1,"player":"bob","score":59800},{"rank":2,"player":"ann","score":61250}]`) {
		t.Errorf("around: %s", b)
	}
	if _, b := s.get(t, "/sources/laps/export.csv"); !strings.Contains(b, "1,bob,59800") {
		t.Errorf("csv: %s", b)
	}
	if _, page := s.get(t, "/sources/laps"); !strings.Contains(page, "lower is better") {
		t.Error("the adopted board's page does not say lower is better")
	}
	status, _, _ = s.postForm(t, "/sources", "/sources", url.Values{"name": {"laps2"}, "kind": {"board"}, "key": {"race:laps2"}, "encoding": {"none"}, "sort_order": {"asc"}})
	if _, b := s.get(t, "/api/v1/sources/laps2"); status != http.StatusSeeOther || !strings.Contains(b, `"sort_order":"asc"`) {
		t.Errorf("adopt from the form: %d %s", status, b)
	}
}
