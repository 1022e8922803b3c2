package e2e

import (
	"net/http"
	"time"
)

// pollInterval is the watcher tick of every zpulse the tests start.
const pollInterval = 100 * time.Millisecond

// testTimeout bounds the browser work of one test, which shares the machine with the tests
// beside it.
const testTimeout = 60 * time.Second

// eventWait bounds a wait for something the page shows (a live frame, a form's answer, a
// theme): only a guard against a hang, since the tests share a busy machine whose ticks and
// renders run late. How fast is make bench's subject, not these tests'.
const eventWait = 20 * time.Second

// boardKey is the sorted set behind /boards/game:2048, the board most tests use.
const boardKey = "leaderboard:game:2048"

// httpClient makes the tests' own requests; a server that hangs fails the test.
var httpClient = &http.Client{Timeout: 5 * time.Second}
