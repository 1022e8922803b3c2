package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

func TestAPIBoardSettings(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	if status, b := s.get(t, "/api/v1/boards/b"); status != http.StatusOK || b != `{"tie_break":"none","periods":[],"retention_days":90,"keep_seasons":0,"season_every":"","season_zone":"","sort_order":"desc","operator":"incr"}`+"\n" {
		t.Errorf("defaults: %d %s", status, b)
	}
	status, b, _ := s.do(t, http.MethodPut, "/api/v1/boards/b", "application/json", `{"tie_break":"first_reached","periods":["weekly","daily"],"retention_days":30}`)
	if status != http.StatusOK || b != `{"tie_break":"first_reached","periods":["daily","weekly"],"retention_days":30,"keep_seasons":0,"season_every":"","season_zone":"","sort_order":"desc","operator":"incr"}`+"\n" {
		t.Errorf("put: %d %s", status, b)
	}
	status, b, _ = s.do(t, http.MethodPut, "/api/v1/boards/b", "application/json", `{"retention_days":7}`)
	if status != http.StatusOK || !strings.Contains(b, `"tie_break":"first_reached"`) || !strings.Contains(b, `"retention_days":7`) {
		t.Errorf("a partial put keeps the other fields: %d %s", status, b)
	}
	for body, want := range map[string]string{
		`{"tie_break":"random"}`:        `"none", "first_reached", "first_reached_e10" or "first_reached_wide"`,
		`{"periods":["hourly"]}`:        "daily, weekly and monthly",
		`{"retention_days":0}`:          "from 1 to 3,650",
		`{"retention_days":1.5}`:        "written as digits",
		`{"periods":"daily"}`:           `"periods" must be a JSON array`,
		`{"retention_days":90,"x":1}`:   `unknown field "x"`,
		`{"periods":["daily","daily"]}`: "listed twice",
	} {
		t.Run(body, func(t *testing.T) {
			status, b, _ := s.do(t, http.MethodPut, "/api/v1/boards/b", "application/json", body)
			var e httpio.APIError
			json.Unmarshal([]byte(b), &e)
			if status != http.StatusBadRequest || e.Error.Code != "invalid" || !strings.Contains(e.Error.Message, want) {
				t.Errorf("%s: %d %s; want 400 mentioning %s", body, status, b, want)
			}
		})
	}
}

func TestAPIPeriodsAroundAndEntries(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	s.do(t, http.MethodPut, "/api/v1/boards/g", "application/json", `{"periods":["daily"]}`)
	for i := range 12 {
		s.postJSON(t, "/api/v1/boards/g/scores", fmt.Sprintf(`{"player":"p%02d","points":%d}`, i, i*10))
	}
	if _, b := s.get(t, "/api/v1/boards/g/top?n=2&period=daily"); !strings.Contains(b, `"period":"daily","entries":[{"rank":1,"player":"p11","score":110},{"rank":2,"player":"p10","score":100}]`) {
		t.Errorf("daily top: %s", b)
	}
	if status, b := s.get(t, "/api/v1/boards/g/top?period=hourly"); status != http.StatusBadRequest || !strings.Contains(b, "daily, weekly or monthly") {
		t.Errorf("bad period: %d %s", status, b)
	}
	_, b := s.get(t, "/api/v1/boards/g/players/p11/around?n=1")
	if b != `{"entries":[{"rank":1,"player":"p11","score":110},{"rank":2,"player":"p10","score":100}]}`+"\n" {
		t.Errorf("around the leader: %s", b)
	}
	if status, _ := s.get(t, "/api/v1/boards/g/players/nobody/around"); status != http.StatusNotFound {
		t.Errorf("around an absent player: %d", status)
	}
	var all []string
	cursor := ""
	for range 10 {
		_, b := s.get(t, "/api/v1/boards/g/entries?limit=5&cursor="+cursor)
		var page struct {
			Entries []struct{ Player string }
			Next    *string `json:"next_cursor"`
		}
		if err := json.Unmarshal([]byte(b), &page); err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entries {
			all = append(all, e.Player)
		}
		if page.Next == nil {
			break
		}
		cursor = *page.Next
	}
	if fmt.Sprint(all) != "[p11 p10 p09 p08 p07 p06 p05 p04 p03 p02 p01 p00]" {
		t.Errorf("paged: %v", all)
	}
	for q, want := range map[string]string{"limit=0": "limit must be", "limit=1001": "limit must be", "cursor=xyz": "cursor must be"} {
		if status, b := s.get(t, "/api/v1/boards/g/entries?"+q); status != http.StatusBadRequest || !strings.Contains(b, want) {
			t.Errorf("%s: %d %s", q, status, b)
		}
	}
}

func TestAPISetRemoveTrimReset(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "tok", nil)
	auth := []string{"Authorization", "Bearer tok"}
	for i := range 5 {
		s.postJSON(t, "/api/v1/boards/b/scores", fmt.Sprintf(`{"player":"p%d","points":%d}`, i, i+1), auth...)
	}
	status, b, _ := s.do(t, http.MethodPut, "/api/v1/boards/b/players/p0", "application/json", `{"score":100}`, auth...)
	if status != http.StatusOK || b != `{"rank":1,"player":"p0","score":100}`+"\n" {
		t.Errorf("set: %d %s", status, b)
	}
	if status, b, _ = s.do(t, http.MethodPut, "/api/v1/boards/b/players/p0", "application/json", `{"score":"100"}`, auth...); status != http.StatusBadRequest {
		t.Errorf("textual score: %d %s", status, b)
	}
	if status, _, _ = s.do(t, http.MethodDelete, "/api/v1/boards/b/players/p1", "", "", auth...); status != http.StatusNoContent {
		t.Errorf("delete: %d", status)
	}
	if status, b, _ = s.do(t, http.MethodDelete, "/api/v1/boards/b/players/p1", "", "", auth...); status != http.StatusNotFound || !strings.Contains(b, "not_found") {
		t.Errorf("delete again: %d %s", status, b)
	}
	if status, b = s.postJSON(t, "/api/v1/boards/b/trim", `{"keep":2}`, auth...); status != http.StatusOK || b != `{"removed":2}`+"\n" {
		t.Errorf("trim: %d %s", status, b)
	}
	if status, b = s.postJSON(t, "/api/v1/boards/b/trim", `{"keep":0}`, auth...); status != http.StatusBadRequest {
		t.Errorf("trim keep 0: %d %s", status, b)
	}
	if status, b, _ = s.do(t, http.MethodDelete, "/api/v1/boards/b", "", "", auth...); status != http.StatusOK || !strings.Contains(b, `"deleted_keys":`) {
		t.Errorf("reset: %d %s", status, b)
	}
	if k := keys(t, s.rdb); len(k) != 1 || k[0] != "{leaderboard:b}:history" { // the record of changes stays
		t.Errorf("after reset: %v; want the score history only", k)
	}
	for _, c := range [][2]string{{http.MethodPut, "/api/v1/boards/b"}, {http.MethodDelete, "/api/v1/boards/b"}, {http.MethodDelete, "/api/v1/boards/b/players/x"}, {http.MethodPut, "/api/v1/boards/b/players/x"}} {
		if status, _, _ := s.do(t, c[0], c[1], "application/json", `{}`); status != http.StatusUnauthorized {
			t.Errorf("%s %s without the token: %d", c[0], c[1], status)
		}
	}
}

// Boards written by others are listed with their leaders.
func TestAPIBoardsList(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	s.postJSON(t, "/api/v1/boards/own/scores", `{"player":"a","points":3}`)
	s.rdb.ZAdd(t.Context(), "leaderboard:theirs", redisZ(7, "x"))
	if err := s.svc.Discovery.Refresh(t.Context()); err != nil { // as its cadence would
		t.Fatal(err)
	}
	_, b := s.get(t, "/api/v1/boards")
	if b != `{"boards":[{"board":"own","players":1,"top":[{"rank":1,"player":"a","score":3}]},{"board":"theirs","players":1,"top":[{"rank":1,"player":"x","score":7}]}]}`+"\n" {
		t.Errorf("boards: %s", b)
	}
}

// A board named like another board's period board (leaderboard:x:2026-11-30 is board x's
// daily board in the articles' layout) is refused, with the reason, and nothing is written
// but the refusals' entries in the audit trail.
func TestAPIRefusesABoardNamedLikeAPeriod(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	for _, board := range []string{"x:2026-11-30", "x:2026-W48", "x:2026-11"} {
		for _, c := range []struct{ method, path, body string }{
			{http.MethodPost, "/api/v1/boards/" + board + "/scores", `{"player":"p","points":1}`},
			{http.MethodPut, "/api/v1/boards/" + board + "/players/p", `{"score":1}`},
			{http.MethodPut, "/api/v1/boards/" + board, `{"periods":["daily"]}`},
		} {
			status, b, _ := s.do(t, c.method, c.path, "application/json", c.body)
			var e httpio.APIError
			json.Unmarshal([]byte(b), &e)
			if status != http.StatusBadRequest || e.Error.Code != "invalid" || !strings.Contains(e.Error.Message, "is also board \"x\"'s") {
				t.Errorf("%s %s: %d %s; want 400 saying the key is also board x's period board", c.method, c.path, status, b)
			}
		}
	}
	if k := s.rdb.Keys(t.Context(), "*").Val(); len(k) != 1 || k[0] != redisrepo.DefaultKeys.Audit() {
		t.Errorf("refused writes wrote %v", k)
	}
	if status, _ := s.postJSON(t, "/api/v1/boards/x:2026/scores", `{"player":"p","points":1}`); status != http.StatusOK {
		t.Errorf("x:2026 names no period, yet: %d", status)
	}
}
