package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/zpulse/zpulse/internal/web/httpio"
)

// The articles' example through the API.
func TestAPIArticleExample(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	for _, body := range []string{`{"player":"alice","points":120}`, `{"player":"bob","points":95}`, `{"player":"carol","points":150}`} {
		if status, b := s.postJSON(t, "/api/v1/boards/game:2048/scores", body); status != http.StatusOK {
			t.Fatalf("%s: %d %s", body, status, b)
		}
	}
	status, b := s.postJSON(t, "/api/v1/boards/game:2048/scores", `{"player":"bob","points":60}`)
	if status != http.StatusOK || b != `{"rank":1,"player":"bob","score":155}`+"\n" {
		t.Errorf("bob +60: %d %s", status, b)
	}
	status, b = s.get(t, "/api/v1/boards/game:2048/top?n=3")
	want := `{"board":"game:2048","entries":[{"rank":1,"player":"bob","score":155},{"rank":2,"player":"carol","score":150},{"rank":3,"player":"alice","score":120}],"players":3,"unique_today":3}` + "\n"
	if status != http.StatusOK || b != want {
		t.Errorf("top 3: %d %s", status, b)
	}
	if status, b = s.get(t, "/api/v1/boards/game:2048/players/alice"); status != http.StatusOK || b != `{"rank":3,"player":"alice","score":120}`+"\n" {
		t.Errorf("alice: %d %s", status, b)
	}
	status, b = s.get(t, "/api/v1/boards/game:2048/players/nobody")
	if status != http.StatusNotFound || !strings.Contains(b, `"code":"not_found"`) {
		t.Errorf("unknown player: %d %s", status, b)
	}
}

func TestAPIRejectsBadInputAndWritesNothing(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	long := strings.Repeat("x", 65)
	cases := []struct {
		name, path, body string
		want             string // part of the message
	}{
		{"empty player", "/api/v1/boards/b/scores", `{"player":"","points":1}`, "1 to 64 bytes"},
		{"65-byte player", "/api/v1/boards/b/scores", `{"player":"` + long + `","points":1}`, "at most 64 bytes"},
		{"no player", "/api/v1/boards/b/scores", `{"points":1}`, "player is required"},
		{"numeric player", "/api/v1/boards/b/scores", `{"player":5,"points":1}`, `"player" must be a JSON string`},
		{"control char", "/api/v1/boards/b/scores", `{"player":"a\u0007","points":1}`, "printable"},
		{"fractional points", "/api/v1/boards/b/scores", `{"player":"a","points":1.5}`, "written as digits"},
		{"exponent points", "/api/v1/boards/b/scores", `{"player":"a","points":1e3}`, "written as digits"},
		{"textual points", "/api/v1/boards/b/scores", `{"player":"a","points":"50"}`, "written as digits"},
		{"null points", "/api/v1/boards/b/scores", `{"player":"a","points":null}`, "written as digits"},
		{"no points", "/api/v1/boards/b/scores", `{"player":"a"}`, "points is required"},
		{"huge points", "/api/v1/boards/b/scores", `{"player":"a","points":9007199254740992}`, "-9,007,199,254,740,991 to 9,007,199,254,740,991"},
		{"enormous points", "/api/v1/boards/b/scores", `{"player":"a","points":123456789012345678901234567890}`, "written as digits"},
		{"bad board", "/api/v1/boards/bad%20board/scores", `{"player":"a","points":1}`, "1 to 64 characters from A-Z"},
		{"long board", "/api/v1/boards/" + long + "/scores", `{"player":"a","points":1}`, "1 to 64 characters"},
		{"not JSON", "/api/v1/boards/b/scores", `player=a&points=1`, "not valid JSON"},
		{"empty body", "/api/v1/boards/b/scores", ``, "body is empty"},
		{"array", "/api/v1/boards/b/scores", `[1,2]`, "must be a JSON object"},
		{"unknown field", "/api/v1/boards/b/scores", `{"player":"a","points":1,"bonus":2}`, `unknown field "bonus"`},
		{"two objects", "/api/v1/boards/b/scores", `{"player":"a","points":1}{"player":"a","points":1}`, "exactly one JSON object"},
		{"truncated", "/api/v1/boards/b/scores", `{"player":"a","points":`, "not valid JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, b := s.postJSON(t, c.path, c.body)
			var e httpio.APIError
			if err := json.Unmarshal([]byte(b), &e); err != nil || status != http.StatusBadRequest || e.Error.Code != "invalid" || !strings.Contains(e.Error.Message, c.want) {
				t.Errorf("%s: %d %s; want 400 invalid mentioning %q", c.name, status, b, c.want)
			}
		})
	}
	for _, q := range []string{"n=0", "n=1001", "n=abc", "n=1.5"} {
		if status, b := s.get(t, "/api/v1/boards/b/top?"+q); status != http.StatusBadRequest || !strings.Contains(b, `"invalid"`) {
			t.Errorf("top?%s: %d %s", q, status, b)
		}
	}
	if k := keys(t, s.rdb); len(k) != 0 {
		t.Errorf("bad input wrote %v", k)
	}
}

func TestAPIContentTypeAndSizeAndRoutes(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	status, b, _ := s.do(t, http.MethodPost, "/api/v1/boards/b/scores", "text/plain", `{"player":"a","points":1}`)
	if status != http.StatusUnsupportedMediaType || !strings.Contains(b, "application/json") {
		t.Errorf("text/plain: %d %s", status, b)
	}
	if status, _ := s.postJSON(t, "/api/v1/boards/b/scores", `{"player":"a","points":1}`, "Content-Type", "application/json; charset=utf-8"); status != http.StatusOK {
		t.Errorf("json with charset: %d", status)
	}
	status, b = s.postJSON(t, "/api/v1/boards/b/scores", `{"player":"`+strings.Repeat("x", 2<<20)+`","points":1}`)
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(b, `"code":"too_large"`) {
		t.Errorf("2 MB body: %d %.200s", status, b)
	}
	if status, b = s.get(t, "/api/v1/nothing/here"); status != http.StatusNotFound || !strings.Contains(b, `"code":"not_found"`) {
		t.Errorf("unknown API path: %d %s", status, b)
	}
}

// Players with any printable UTF-8, "/" and "%" included, survive the path.
func TestAPIPlayerNamesInPaths(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	for _, p := range []string{"a/b", "50%", "Zoë 🎮", "a?b#c"} {
		body, _ := json.Marshal(map[string]any{"player": p, "points": 7})
		if status, b := s.postJSON(t, "/api/v1/boards/b/scores", string(body)); status != http.StatusOK {
			t.Fatalf("add %q: %d %s", p, status, b)
		}
		status, b := s.get(t, "/api/v1/boards/b/players/"+url.PathEscape(p))
		var e struct{ Player string }
		json.Unmarshal([]byte(b), &e)
		if status != http.StatusOK || e.Player != p {
			t.Errorf("get %q: %d %s", p, status, b)
		}
	}
}

// 200 adds to one player from 16 clients at once give the exact sum.
func TestAPIConcurrentAddsAreExact(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	// n adds of 1..n points from workers at once: enough overlap to lose an update if an add
	// were read-modify-write in Go, few enough connections that a busy machine answers each
	// within the client's timeout.
	const n, workers = 200, 16
	var wg sync.WaitGroup
	fails := make(chan string, n)
	adds := make(chan int, n)
	for i := 1; i <= n; i++ {
		adds <- i
	}
	close(adds)
	for range workers {
		wg.Go(func() {
			for i := range adds {
				status, b := s.postJSON(t, "/api/v1/boards/race/scores", fmt.Sprintf(`{"player":"one","points":%d}`, i))
				if status != http.StatusOK {
					fails <- fmt.Sprintf("%d %s", status, b)
				}
			}
		})
	}
	wg.Wait()
	close(fails)
	for f := range fails {
		t.Fatal(f)
	}
	_, b := s.get(t, "/api/v1/boards/race/players/one")
	if want := fmt.Sprintf(`{"rank":1,"player":"one","score":%d}`, n*(n+1)/2) + "\n"; b != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

func TestAPIAdminToken(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "s3cret", nil)
	body := `{"player":"a","points":1}`
	for _, auth := range []string{"", "Bearer wrong", "s3cret", "Basic s3cret"} {
		status, b := s.postJSON(t, "/api/v1/boards/b/scores", body, "Authorization", auth)
		if status != http.StatusUnauthorized || !strings.Contains(b, `"code":"unauthorized"`) {
			t.Errorf("Authorization %q: %d %s", auth, status, b)
		}
	}
	if k := keys(t, s.rdb); len(k) != 0 {
		t.Errorf("unauthorised calls wrote %v", k)
	}
	if status, b := s.postJSON(t, "/api/v1/boards/b/scores", body, "Authorization", "Bearer s3cret"); status != http.StatusOK {
		t.Errorf("right token: %d %s", status, b)
	}
	if status, _ := s.get(t, "/api/v1/boards/b/top"); status != http.StatusOK {
		t.Errorf("reads need no token: %d", status)
	}
}
