package api

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/web/httpio"
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
		decode := httpio.DecodeJSON
		if optional {
			decode = httpio.DecodeOptionalJSON
		}
		err := decode(c, &v)
		if err == nil {
			// The raw numbers go through the binder.
			if v.Priority != nil {
				_, err = httpio.PriorityInput.JSON(v.Priority)
				checkClientError(t, err)
			}
			if v.DelayMs != nil {
				_, err = httpio.DelayInput.Millis(v.DelayMs)
				checkClientError(t, err)
			}
			return
		}
		checkClientError(t, err)
	})
}

// checkClientError fails unless err is nil or answers with a 4xx status.
func checkClientError(t *testing.T, err error) {
	t.Helper()
	if status, code, _ := httpio.DescribeError(err); err != nil && (status < 400 || status > 499) {
		t.Fatalf("%d %s: %v", status, code, err)
	}
}
