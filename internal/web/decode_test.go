package web

import (
	"net/http"
	"strings"
	"testing"
)

// Invalid UTF-8 (raw or as a lone surrogate escape) and a member named twice, at any depth,
// are refused with a 400 that names the problem, and nothing is written: encoding/json would
// store U+FFFD, or keep the last of the two.
func TestDecodeRefusesBadUTF8AndDuplicateNames(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	for _, c := range []struct{ path, body, want string }{
		{"/api/v1/boards/b/scores", `{"player":"a","player":"b","points":1}`, `names \"/player\" twice`},
		{"/api/v1/boards/b/scores", "{\"player\":\"a\xff\",\"points\":1}", "not valid UTF-8"},
		{"/api/v1/boards/b/scores", `{"player":"a\ud800","points":1}`, "not valid Unicode"},
		{"/api/v1/queues/q/jobs", `{"id":"j","payload":{"k":1,"k":2}}`, `names \"/payload/k\" twice`},
	} {
		status, body := s.postJSON(t, c.path, c.body)
		if status != http.StatusBadRequest || !strings.Contains(body, c.want) {
			t.Errorf("%s %q: %d %s, want 400 saying %s", c.path, c.body, status, body, c.want)
		}
	}
	if k := keys(t, s.rdb); len(k) != 0 {
		t.Errorf("refused bodies wrote %v", k)
	}
	if status, body := s.postJSON(t, "/api/v1/boards/b/scores", `{"player":"\ud83d\ude00","points":1}`); status != http.StatusOK {
		t.Errorf("a valid surrogate pair: %d %s", status, body)
	}
}
