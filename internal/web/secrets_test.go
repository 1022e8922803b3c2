package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
	"github.com/zpulse/zpulse/views"
)

// Markers of each secret, unique in every body, so a leak anywhere in a page, an answer or an
// export is found by a plain search.
const (
	markerLockToken   = "tokMARKERlock1"   // a lock holder's token
	markerSourceToken = "tokMARKERsource2" // the holder's token of a lock under an adopted prefix
	markerPayload     = "payMARKERjob3"    // in a job's payload
	markerClient      = "cliMARKERlimit4"  // a limiter's client
	markerSourceCli   = "cliMARKERsource5" // a client of an adopted limiter
)

var (
	lockMarkers    = []string{markerLockToken, markerSourceToken}
	payloadMarkers = []string{markerPayload}
	clientMarkers  = []string{markerClient, markerSourceCli}
)

// secretPaths are every page, answer and export that shows a lock, a job or a limiter's
// clients.
var secretPaths = []string{
	"/", "/locks", "/locks/held/force-release", "/api/v1/locks", "/api/v1/locks/held",
	"/queues/mail", "/queues/mail/jobs/live", "/queues/mail/jobs/gone", "/api/v1/queues/mail/jobs/live",
	"/api/v1/queues/mail/jobs/gone", "/queues/mail/jobs?state=dead", "/queues/mail/dead/export.csv",
	"/api/v1/queues/mail/dead/export.csv", "/limiters", "/limiters/default", "/api/v1/limiters", "/api/v1/limiters/default",
	"/sources", "/sources/svclocks", "/sources/svcrate", "/api/v1/sources", "/api/v1/sources/svclocks", "/api/v1/sources/svcrate",
	"/metrics",
}

// seedSecrets makes one of each secret through the API as an admin: a held lock, a lock and a
// client under adopted layouts, a waiting job and a dead one with payloads, a limiter client.
func seedSecrets(t *testing.T, s *testServer) {
	t.Helper()
	ctx := context.Background()
	bearer := []string{"Authorization", "Bearer s3cret"}
	call := func(method, path, body string, want int) string {
		t.Helper()
		status, b, _ := s.do(t, method, path, "application/json", body, bearer...)
		if status != want {
			t.Fatalf("%s %s: %d %s, want %d", method, path, status, b, want)
		}
		return b
	}
	call(http.MethodPost, "/api/v1/locks/held/acquire", `{"ttl_ms":60000,"owner":"`+markerLockToken+`"}`, http.StatusOK)
	call(http.MethodPut, "/api/v1/sources/svclocks", `{"kind":"lock","key":"svc:lock:"}`, http.StatusOK)
	s.rdb.Set(ctx, "svc:lock:a", markerSourceToken, time.Minute)
	call(http.MethodPut, "/api/v1/sources/svcrate", `{"kind":"limiter","key":"svc:rate:{client}","encoding":"sliding_log","limit":10,"window_ms":60000}`, http.StatusOK)
	call(http.MethodPost, "/api/v1/sources/svcrate/check", `{"client":"`+markerSourceCli+`"}`, http.StatusOK)
	call(http.MethodPost, "/api/v1/limiters/default/check", `{"client":"`+markerClient+`"}`, http.StatusOK)
	call(http.MethodPut, "/api/v1/queues/mail", `{"max_attempts":1}`, http.StatusOK)
	call(http.MethodPost, "/api/v1/queues/mail/jobs", `{"id":"gone","priority":0,"payload":{"secret":"`+markerPayload+`"}}`, http.StatusCreated)
	var d domain.Delivery
	if err := json.Unmarshal([]byte(call(http.MethodPost, "/api/v1/queues/mail/poll", `{"lease_ms":60000}`, http.StatusOK)), &d); err != nil || d.ID != "gone" {
		t.Fatalf("poll: %v %+v", err, d)
	}
	call(http.MethodPost, "/api/v1/queues/mail/jobs/gone/nack", `{"token":"`+d.Token+`"}`, http.StatusOK)
	call(http.MethodPost, "/api/v1/queues/mail/jobs", `{"id":"live","priority":0,"payload":{"secret":"`+markerPayload+`"}}`, http.StatusCreated)
	if err := s.svc.Limiters.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.svc.Discovery.Refresh(ctx); err != nil { // one sweep, as its cadence would
		t.Fatal(err)
	}
}

// leaks returns the markers found in body.
func leaks(body string, markers ...[]string) []string {
	var found []string
	for _, ms := range markers {
		for _, m := range ms {
			if strings.Contains(body, m) {
				found = append(found, m)
			}
		}
	}
	return found
}

// reader reads path as an anonymous reader, a signed-in admin (pages) or an admin's bearer
// token (API).
func (s *testServer) read(t *testing.T, path string, admin *testServer) string {
	t.Helper()
	var status int
	var body string
	switch {
	case admin == nil:
		status, body = s.get(t, path)
	case strings.HasPrefix(path, "/api/"):
		status, body, _ = s.do(t, http.MethodGet, path, "", "", "Authorization", "Bearer s3cret")
	default:
		status, body = admin.get(t, path)
	}
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %.300s", path, status, body)
	}
	return body
}

// With an admin token, no page, fragment, answer or export shows an anonymous reader a lock
// token, a payload or a client id; an admin sees each where it is shown.
func TestSecretsHiddenFromAnonymousReaders(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "s3cret", nil)
	seedSecrets(t, s)
	anon := s.withCookie(t, nil)
	for _, path := range secretPaths {
		if found := leaks(anon.read(t, path, nil), lockMarkers, payloadMarkers, clientMarkers); len(found) > 0 {
			t.Errorf("anonymous GET %s shows %v", path, found)
		}
	}
	admin := s.withCookie(t, s.signIn(t, "s3cret"))
	for path, want := range map[string]string{
		"/": markerLockToken, "/locks": markerLockToken, "/locks/held/force-release": markerLockToken,
		"/api/v1/locks": markerLockToken, "/api/v1/locks/held": markerLockToken, "/api/v1/sources/svclocks": markerSourceToken,
		"/queues/mail/jobs/live": markerPayload, "/api/v1/queues/mail/jobs/live": markerPayload, "/queues/mail/dead/export.csv": markerPayload,
		"/api/v1/queues/mail/dead/export.csv": markerPayload, "/limiters/default": markerClient, "/sources/svcrate": markerSourceCli,
		"/api/v1/sources/svcrate": markerSourceCli,
	} {
		if body := s.read(t, path, admin); !strings.Contains(body, want) {
			t.Errorf("admin GET %s does not show %s: %.400s", path, want, body)
		}
	}
	// What anonymous readers see instead says so, and tells clients apart.
	if body := anon.read(t, "/locks", nil); !strings.Contains(body, ">hidden<") {
		t.Error("/locks does not say the token is hidden")
	}
	if body := anon.read(t, "/api/v1/queues/mail/jobs/live", nil); !strings.Contains(body, `"payload_hidden":true`) {
		t.Errorf("the job's answer does not say its payload is hidden: %s", body)
	}
	if body := anon.read(t, "/api/v1/sources/svclocks", nil); !strings.Contains(body, `"value_hidden":true`) {
		t.Errorf("the lock source does not say its holder is hidden: %s", body)
	}
	if body := anon.read(t, "/queues/mail/dead/export.csv", nil); !strings.Contains(body, hiddenCell) {
		t.Errorf("the export does not say the payload is hidden: %s", body)
	}
	label := domain.Anonymous(0, "s3cret").Client(markerClient)
	if body := anon.read(t, "/limiters/default", nil); !strings.Contains(body, label) {
		t.Errorf("the limiter page does not show the client's label %s", label)
	}
}

// --show-to-anonymous shows payloads and client ids to anonymous readers; lock tokens stay
// hidden whatever it says.
func TestShowToAnonymousOptIn(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "s3cret", nil)
	seedSecrets(t, s)
	shown := newTestServerWith(t, "s3cret", s.rdb, func(d *Deps) { d.ShowToAnonymous = domain.JobPayloads | domain.ClientIDs })
	for _, path := range secretPaths {
		if found := leaks(shown.read(t, path, nil), lockMarkers); len(found) > 0 {
			t.Errorf("anonymous GET %s shows lock tokens %v despite the opt-in naming none", path, found)
		}
	}
	for path, want := range map[string]string{
		"/queues/mail/jobs/live": markerPayload, "/api/v1/queues/mail/jobs/live": markerPayload, "/queues/mail/dead/export.csv": markerPayload,
		"/limiters/default": markerClient, "/": markerClient, "/api/v1/sources/svcrate": markerSourceCli,
	} {
		if body := shown.read(t, path, nil); !strings.Contains(body, want) {
			t.Errorf("anonymous GET %s with the opt-in does not show %s", path, want)
		}
	}
}

// Live fragments go to each websocket as its reader may see them, decided when it connects:
// an anonymous connection never gets a frame with a token, a payload or a client id; an
// admin's (signed in) gets them, not "hidden".
func TestLiveSecretsPerAudience(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	w := newTestWiring(t, rdb, "s3cret")
	s := serveWiring(t, rdb, w)
	seedSecrets(t, s)
	ck := s.signIn(t, "s3cret")
	topics := []string{domain.TopicLocks, domain.JobTopic("mail", "live"), domain.LimiterTopic("default"), domain.SourceTopic("svclocks"),
		domain.SourceTopic("svcrate"), domain.TopicLimiters}
	anon, _, err := dialWS(s, nil, topics...)
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	admin, _, err := dialWS(s, http.Header{"Origin": {s.URL}, "Cookie": {ck.Name + "=" + ck.Value}}, topics...)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	waitSubscriptions(t, w.deps.Hub, func() bool { return len(w.deps.Hub.Subscriptions()) >= 2*len(topics) }) // one per topic and audience
	s.watcher.Tick(context.Background())
	s.watcher.Tick(context.Background()) // a limiter's live view shows from the second read
	// Each topic's frame is a message of its own: read until every panel that carries a marker
	// came, the adopted limiter's (svcrate) included.
	panels := []string{`id="` + views.LocksPanelID + `"`, `id="` + views.JobPanelID("mail", "live") + `"`, `id="` + views.LimiterPanelID("default") + `"`, `id="source-svcrate"`}
	anonFrames := readFrames(t, anon, panels)
	if found := leaks(anonFrames, lockMarkers, payloadMarkers, clientMarkers); len(found) > 0 {
		t.Errorf("an anonymous websocket got %v", found)
	}
	if !strings.Contains(anonFrames, ">hidden<") {
		t.Error("the anonymous locks fragment does not say the token is hidden")
	}
	adminFrames := readFrames(t, admin, panels)
	for _, want := range []string{markerLockToken, markerPayload, markerClient, markerSourceCli} {
		if !strings.Contains(adminFrames, want) {
			t.Errorf("the admin's websocket did not get %s", want)
		}
	}
	if strings.Contains(adminFrames, ">hidden<") {
		t.Error("the admin's live locks say hidden")
	}
}

// readFrames reads websocket messages until every one of want has arrived, and returns them
// all joined.
func readFrames(t *testing.T, conn *websocket.Conn, want []string) string {
	t.Helper()
	var got strings.Builder
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		all := got.String()
		if len(leaks(all, want)) == len(want) {
			return all
		}
		_, msg, err := conn.ReadMessage()
		if err != nil {
			t.Fatalf("read: %v (so far %s)", err, all)
		}
		got.Write(msg)
	}
}

// A signed-in admin's live connection ends when its session does (here: sign out everywhere),
// closed with 1008 so the browser reconnects as whoever it is now: no secret reaches a
// connection whose session is over. Before, it kept the admin's frames until it reconnected.
func TestLiveConnectionEndsWithItsSession(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	w := newTestWiring(t, rdb, "s3cret")
	w.deps.SessionRecheck = 20 * time.Millisecond
	s := serveWiring(t, rdb, w)
	ck := s.signIn(t, "s3cret")
	admin, _, err := dialWS(s, http.Header{"Origin": {s.URL}, "Cookie": {ck.Name + "=" + ck.Value}}, domain.TopicLocks)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	anon, _, err := dialWS(s, nil, domain.TopicLocks)
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	if status, body, _ := s.postForm(t, "/", "/logout/everywhere", url.Values{}); status != http.StatusSeeOther {
		t.Fatalf("sign out everywhere: %d %.300s", status, body)
	}
	admin.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		_, _, err := admin.ReadMessage()
		if err == nil {
			continue // a fragment sent before the session ended
		}
		if !websocket.IsCloseError(err, websocket.ClosePolicyViolation) {
			t.Fatalf("the admin's live connection ended with %v, want close 1008 once its session ended", err)
		}
		break
	}
	// An anonymous connection has no session to lose: it stays open.
	s.watcher.Tick(context.Background())
	anon.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := anon.ReadMessage(); err != nil {
		t.Errorf("the anonymous connection ended too: %v", err)
	}
}
