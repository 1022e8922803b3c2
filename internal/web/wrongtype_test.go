package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

// Another service's LIST at queue:rq and HASH at leaderboard:cfg: calls on those
// names answer 409 wrong_type naming the key and its type, and once the names are indexed the
// lists and the overview stay 200 and mark them.
func TestKeysOfAnotherTypeAnswer409AndListsStay200(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	ctx := t.Context()
	s.rdb.RPush(ctx, "queue:rq", "their-job")
	s.rdb.HSet(ctx, "leaderboard:cfg", "colour", "blue")
	for _, call := range []struct{ method, path, body, key, typ string }{
		{http.MethodPost, "/api/v1/queues/rq/jobs", `{"priority":1}`, "queue:rq", "list"},
		{http.MethodPost, "/api/v1/queues/rq/poll", `{}`, "queue:rq", "list"},
		{http.MethodGet, "/api/v1/queues/rq", "", "queue:rq", "list"},
		{http.MethodGet, "/api/v1/queues/rq/jobs?state=waiting", "", "queue:rq", "list"},
		{http.MethodPost, "/api/v1/boards/cfg/scores", `{"player":"a","points":1}`, "leaderboard:cfg", "hash"},
		{http.MethodGet, "/api/v1/boards/cfg/top", "", "leaderboard:cfg", "hash"},
	} {
		status, body, _ := s.do(t, call.method, call.path, "application/json", call.body)
		var e httpio.APIError
		if err := json.Unmarshal([]byte(body), &e); err != nil || status != http.StatusConflict || e.Error.Code != domain.CodeWrongType ||
			!strings.Contains(e.Error.Message, `"`+call.key+`" is a `+call.typ) {
			t.Errorf("%s %s = %d %s, want 409 wrong_type naming %s", call.method, call.path, status, body, call.key)
		}
	}
	for _, page := range []string{"/queues/rq", "/boards/cfg"} {
		if status, body := s.get(t, page); status != http.StatusConflict || !strings.Contains(body, "not a sorted set") {
			t.Errorf("%s = %d, want a 409 page saying what the key is", page, status)
		}
	}
	if n := s.rdb.Exists(ctx, "zpulse:index:queues", "zpulse:index:boards").Val(); n != 0 {
		t.Errorf("%d index sets written", n)
	}

	s.rdb.SAdd(ctx, "zpulse:index:queues", "rq")
	s.rdb.SAdd(ctx, "zpulse:index:boards", "cfg")
	if err := s.svc.Discovery.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	for _, page := range []string{"/", "/queues", "/boards"} {
		status, body := s.get(t, page)
		if status != http.StatusOK || !strings.Contains(body, "not a sorted set (a ") {
			t.Errorf("%s = %d, want 200 with the entry marked", page, status)
		}
	}
	for path, want := range map[string]string{"/api/v1/queues": `"wrong_type":"list"`, "/api/v1/boards": `"wrong_type":"hash"`} {
		if status, body := s.get(t, path); status != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("%s = %d %s, want 200 with %s", path, status, body, want)
		}
	}
}
