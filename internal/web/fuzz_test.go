package web

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// FuzzDecodeJSON: whatever the body, the API's one JSON decoder and its number parsers
// answer a value or a 4xx-class error, never panic or a 5xx.
func FuzzDecodeJSON(f *testing.F) {
	for _, seed := range []string{``, `{}`, `null`, `[]`, `{"id":"a","priority":1,"delay_ms":0,"payload":{"x":[1,2]}}`,
		`{"priority":1.5}`, `{"priority":1e3}`, `{"priority":-0}`, `{"priority":99999999999999999999}`, `{"x":1}`,
		`{"id":"a"}{}`, `{"payload":"` + "\xff" + `"}`, `{"run_at":"2026-11-30T00:00:00Z"}`, `{`, `"str"`, `{"id":null}`,
		`{"id":"a","id":"b"}`, `{"payload":{"k":1,"k":2}}`, `{"id":"\ud800"}`, `{"id":"\ud83d\ude00"}`, "{\"id\":\"a\xc3\"}"} {
		f.Add([]byte(seed), false)
	}
	e := echo.New()
	f.Fuzz(func(t *testing.T, body []byte, optional bool) {
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		c := e.NewContext(req, httptest.NewRecorder())
		var v enqueueRequest
		err := decodeBody(c, &v, optional)
		if err == nil {
			// The raw numbers go through the binder.
			if v.Priority != nil {
				_, err = priorityInput.json(v.Priority)
				checkClientError(t, err)
			}
			if v.DelayMs != nil {
				_, err = delayInput.millis(v.DelayMs)
				checkClientError(t, err)
			}
			return
		}
		checkClientError(t, err)
	})
}

// FuzzEntriesCursor: a forged or damaged entries cursor is a 400 (or a page), never a 500,
// through the whole read on a real Redis (the decoder, then the page script).
func FuzzEntriesCursor(f *testing.F) {
	for _, seed := range [][2]string{{"1", "p"}, {"NaN", "p"}, {"+Inf", "p"}, {"-Inf", "z"}, {"0x1p-2", "p"},
		{"1e400", "p"}, {" 1", "p"}, {"1", ""}, {"2.5", "\x00"}, {"-0", "q"}, {"5e-324", "p"}} {
		f.Add(seed[0], seed[1], forgedCursor(seed[0], seed[1]))
	}
	f.Add("", "", "garbage")
	rdb := redistest.DB(f)
	svc := openRepo(f, rdb)
	ctx := context.Background()
	rdb.ZAdd(ctx, "leaderboard:b", redisZ(1, "p"), redisZ(2, "q"), redisZ(2, "r"), redisZ(-3, "s"))
	f.Fuzz(func(t *testing.T, score, member, raw string) {
		for _, cursor := range []string{forgedCursor(score, member), raw} {
			if _, err := svc.Leaderboards.Entries(ctx, "b", domain.AllTime, cursor, 2); err != nil {
				checkClientError(t, err)
			}
		}
	})
}

// checkClientError fails unless err is nil or answers with a 4xx status.
func checkClientError(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if status, code, _ := describeError(err); status < 400 || status > 499 {
		t.Fatalf("%d %s: %v", status, code, err)
	}
}
