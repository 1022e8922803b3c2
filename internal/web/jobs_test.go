package web

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo"
)

// seedDeadJobs puts n dead jobs in queue's dead set directly, many to one millisecond.
func seedDeadJobs(t *testing.T, rdb redis.UniversalClient, queue string, n int) {
	t.Helper()
	ctx := context.Background()
	k := redisrepo.DefaultKeys
	pipe := rdb.Pipeline()
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("job-%05d", i)
		pipe.ZAdd(ctx, k.QueueDead(queue), redis.Z{Score: float64(1_700_000_000_000 + i/40), Member: id})
		pipe.HSet(ctx, k.QueueScores(queue), id, 2*domain.PriorityFactor+1_700_000_000_000)
		pipe.HSet(ctx, k.QueueAttempts(queue), id, 5)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
}

func answerOf[T any](t *testing.T, status int, body string, want int) T {
	t.Helper()
	var v T
	if status != want {
		t.Fatalf("status %d (want %d): %s", status, want, body)
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return v
}

// Paging through 10,000 dead jobs over the API sees each once; counts per state come with
// every page.
func TestAPIJobListsPageThroughDead(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	const n = 10_000
	seedDeadJobs(t, s.rdb, "mail", n)
	seen := map[string]int{}
	path := "/api/v1/queues/mail/jobs?state=dead&limit=500"
	pages := 0
	for {
		status, body := s.get(t, path)
		page := answerOf[domain.JobPage](t, status, body, http.StatusOK)
		pages++
		if page.Counts.Dead != n {
			t.Fatalf("counts %+v", page.Counts)
		}
		for _, j := range page.Jobs {
			seen[j.ID]++
		}
		if page.Next == "" {
			break
		}
		path = "/api/v1/queues/mail/jobs?state=dead&limit=500&cursor=" + url.QueryEscape(page.Next)
	}
	if len(seen) != n || pages != n/500 {
		t.Fatalf("saw %d jobs in %d pages", len(seen), pages)
	}
	for id, c := range seen {
		if c != 1 {
			t.Fatalf("%s seen %d times", id, c)
		}
	}
}

// Bad list parameters are 400 with the reason; a prefix filter says why it is not offered.
func TestAPIJobListBadInput(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	for _, q := range []string{"state=done", "limit=0", "limit=501", "limit=x", "state=dead&cursor=forged",
		"state=waiting&cursor=" + domain.JobCursor{State: domain.JobWaiting, Score: 1, ID: "a"}.Encode([]byte("guessed"), "mail"), "prefix=job-"} {
		status, body := s.get(t, "/api/v1/queues/mail/jobs?"+q)
		if status != http.StatusBadRequest || !strings.Contains(body, `"code":"invalid"`) {
			t.Errorf("%s: %d %s", q, status, body)
		}
		if strings.HasPrefix(q, "prefix") && !strings.Contains(body, "Search instead (q=)") {
			t.Errorf("prefix refusal does not say why and what instead: %s", body)
		}
	}
	if status, body := s.get(t, "/api/v1/queues/bad%7Bname%7D/jobs"); status != http.StatusBadRequest {
		t.Errorf("a queue name with braces: %d %s", status, body)
	}
	// Another service's queue reads whatever its name holds.
	if status, body := s.get(t, "/api/v1/queues/mail%20jobs/jobs"); status != http.StatusOK {
		t.Errorf("queue \"mail jobs\": %d %s", status, body)
	}
}

// A job over the API: its payload, attempts and the error of its failed attempt; 404 when
// there is no such job.
func TestAPIJob(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	s.postJSON(t, "/api/v1/queues/mail/jobs", `{"id":"invoice","priority":3,"payload":{"to":"<ana>"}}`)
	d := s.leasedPoll(t, "mail")
	s.postJSON(t, "/api/v1/queues/mail/jobs/invoice/nack", `{"token":"`+d.Token+`","error":"smtp 451"}`)
	status, body := s.get(t, "/api/v1/queues/mail/jobs/invoice")
	j := answerOf[domain.JobDetail](t, status, body, http.StatusOK)
	var payload map[string]string
	if err := json.Unmarshal(j.Payload, &payload); err != nil || payload["to"] != "<ana>" || j.State != domain.JobWaiting ||
		*j.Priority != 3 || j.Attempts != 1 || len(j.Errors) != 1 || j.Errors[0].Error != "smtp 451" {
		t.Fatalf("job: %s", body)
	}
	status, body = s.get(t, "/api/v1/queues/mail/jobs/nobody")
	if status != http.StatusNotFound || !strings.Contains(body, `"code":"not_found"`) {
		t.Fatalf("missing job: %d %s", status, body)
	}
}

// Requeue all of 10,000 dead jobs reports the count; delete all empties the dead set.
func TestAPIDeadInBulk(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	ctx := context.Background()
	const n = 10_000
	seedDeadJobs(t, s.rdb, "mail", n)
	status, body := s.postJSON(t, "/api/v1/queues/mail/dead/requeue", "")
	res := answerOf[domain.BulkResult](t, status, body, http.StatusOK)
	if res.Moved != n || res.Skipped != 0 {
		t.Fatalf("requeue all: %s", body)
	}
	if got := s.rdb.ZCard(ctx, redisrepo.DefaultKeys.Queue("mail")).Val(); got != n {
		t.Fatalf("queue holds %d", got)
	}
	seedDeadJobs(t, s.rdb, "other", 700)
	status, body, _ = s.do(t, http.MethodDelete, "/api/v1/queues/other/dead", "", "")
	res = answerOf[domain.BulkResult](t, status, body, http.StatusOK)
	if res.Moved != 700 || s.rdb.Exists(ctx, redisrepo.DefaultKeys.QueueDead("other")).Val() != 0 {
		t.Fatalf("delete all: %s", body)
	}
}

// A paused queue's polls answer 204 of every kind until it is resumed.
func TestAPIPauseResume(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	s.postJSON(t, "/api/v1/queues/mail/jobs", `{"id":"a","priority":1}`)
	status, body := s.postJSON(t, "/api/v1/queues/mail/pause", "")
	if status != http.StatusOK || !strings.Contains(body, `"paused":true`) {
		t.Fatalf("pause: %d %s", status, body)
	}
	for _, poll := range []string{"", `{"lease_ms":30000}`, `{"wait_ms":1000}`} {
		if status, body := s.postJSON(t, "/api/v1/queues/mail/poll", poll); status != http.StatusNoContent {
			t.Fatalf("poll %s while paused: %d %s", poll, status, body)
		}
	}
	status, body = s.postJSON(t, "/api/v1/queues/mail/resume", "")
	if status != http.StatusOK || !strings.Contains(body, `"paused":false`) {
		t.Fatalf("resume: %d %s", status, body)
	}
	if status, body := s.postJSON(t, "/api/v1/queues/mail/poll", ""); status != http.StatusOK || !strings.Contains(body, `"id":"a"`) {
		t.Fatalf("poll after resume: %d %s", status, body)
	}
}

// Bulk actions, retries, pause and limiter deletes need the admin token like every change.
func TestAPIJobOpsNeedAdmin(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "secret", nil)
	for _, c := range []struct{ method, path string }{
		{http.MethodPost, "/api/v1/queues/mail/dead/requeue"}, {http.MethodDelete, "/api/v1/queues/mail/dead"},
		{http.MethodPost, "/api/v1/queues/mail/pause"}, {http.MethodPost, "/api/v1/queues/mail/resume"},
		{http.MethodDelete, "/api/v1/limiters/api"}, {http.MethodPost, "/api/v1/queues/mail/bulk"},
		{http.MethodPost, "/api/v1/queues/mail/jobs/a/retry"},
	} {
		if status, body, _ := s.do(t, c.method, c.path, "", ""); status != http.StatusUnauthorized {
			t.Errorf("%s %s without token: %d %s", c.method, c.path, status, body)
		}
	}
}

func TestAPIDeleteLimiter(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	s.do(t, http.MethodPut, "/api/v1/limiters/api", "application/json", `{"algorithm":"fixed_window","limit":5,"window_ms":1000}`)
	if status, body, _ := s.do(t, http.MethodDelete, "/api/v1/limiters/api", "", ""); status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", status, body)
	}
	if status, _, _ := s.do(t, http.MethodDelete, "/api/v1/limiters/api", "", ""); status != http.StatusNotFound {
		t.Fatalf("delete again: %d", status)
	}
	for _, name := range []string{"default", domain.SignInAttempts.Name} {
		status, body, _ := s.do(t, http.MethodDelete, "/api/v1/limiters/"+name, "", "")
		if status != http.StatusConflict || !strings.Contains(body, "built in") {
			t.Errorf("delete %s: %d %s", name, status, body)
		}
	}
	// The sign-in limit lives in code: saving a policy of its name would change nothing, so it
	// is refused, on the API and the form; "default" may be saved (a saved policy wins).
	status, body, _ := s.do(t, http.MethodPut, "/api/v1/limiters/"+domain.SignInAttempts.Name, "application/json",
		`{"algorithm":"fixed_window","limit":1000,"window_ms":1000}`)
	if status != http.StatusConflict || !strings.Contains(body, "built in") {
		t.Errorf("PUT %s: %d %s, want 409 built in", domain.SignInAttempts.Name, status, body)
	}
	status, body, _ = s.postForm(t, "/limiters/"+domain.SignInAttempts.Name, "/limiters/"+domain.SignInAttempts.Name+"/policy",
		url.Values{"algorithm": {"fixed_window"}, "limit": {"1000"}, "window": {"1s"}})
	if status != http.StatusConflict || !strings.Contains(body, "built in") {
		t.Errorf("policy form for %s: %d, want 409 built in", domain.SignInAttempts.Name, status)
	}
	if n := s.rdb.Exists(context.Background(), redisrepo.DefaultKeys.LimiterPolicy(domain.SignInAttempts.Name)).Val(); n != 0 {
		t.Error("a policy hash of the sign-in limit was saved")
	}
	if status, body, _ := s.do(t, http.MethodPut, "/api/v1/limiters/default", "application/json", `{"algorithm":"sliding_log","limit":5,"window_ms":10000}`); status != http.StatusOK {
		t.Errorf("PUT default: %d %s", status, body)
	}
}

// Every piece of a cell that a spreadsheet splitting on ";", "," or a tab could make is
// guarded, not only the cell's start.
func TestCSVCellGuardsEveryPiece(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"alice": "alice", "a-b": "a-b", "x@y.z": "x@y.z", "=1+1": "'=1+1", "-5": "'-5",
		"a;=cmd": "a;'=cmd", "x\t@y": "x\t'@y", "a,+1": "a,'+1", "l1\n-2": "l1\n'-2", "\t=x": "'\t'=x",
	} {
		if got := csvCell(in); got != want {
			t.Errorf("csvCell(%q) = %q, want %q", in, got, want)
		}
	}
}

// The dead jobs' CSV: every job once, formula-like cells quoted, commas and quotes escaped.
func TestDeadExportCSV(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	ctx := context.Background()
	k := redisrepo.DefaultKeys
	seedDeadJobs(t, s.rdb, "mail", 1200)
	s.rdb.ZAdd(ctx, k.QueueDead("mail"), redis.Z{Score: 1_800_000_000_000, Member: "=HYPERLINK(\"x\")"})
	s.rdb.HSet(ctx, k.QueueJobs("mail"), "=HYPERLINK(\"x\")", `{"a":"b, \"c\"","d":"x;+1"}`)
	s.rdb.HSet(ctx, k.QueueErrors("mail"), "=HYPERLINK(\"x\")", `[{"attempt":1,"at":1,"error":"@boom;=cmd"}]`)
	for _, path := range []string{"/api/v1/queues/mail/dead/export.csv", "/queues/mail/dead/export.csv"} {
		status, body, h := s.do(t, http.MethodGet, path, "", "")
		if status != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/csv") {
			t.Fatalf("%s: %d %v", path, status, h)
		}
		rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1202 || strings.Join(rows[0], ",") != "id,died_at,attempts,last_error,payload" {
			t.Fatalf("%d rows, header %v", len(rows), rows[0])
		}
		first := rows[1] // latest death first
		if first[0] != `'=HYPERLINK("x")` || first[3] != "'@boom;'=cmd" || first[4] != `{"a":"b, \"c\"","d":"x;'+1"}` {
			t.Fatalf("first row %q", first)
		}
		ids := map[string]bool{}
		for _, r := range rows[1:] {
			ids[r[0]] = true
		}
		if len(ids) != 1201 {
			t.Fatalf("%d distinct ids", len(ids))
		}
	}
}

// The queue page links every job to its page; the job page shows the payload (escaped) and
// the last error; a single delete asks first, and the confirmation's post deletes it.
func TestJobPageAndDeleteConfirmation(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	s.postJSON(t, "/api/v1/queues/mail/jobs", `{"id":"in voice","priority":3,"payload":{"html":"<script>alert(1)</script>"}}`)
	d := s.leasedPoll(t, "mail")
	s.postJSON(t, "/api/v1/queues/mail/jobs/in%20voice/nack", `{"token":"`+d.Token+`","error":"smtp <451>"}`)
	_, page := s.get(t, "/queues/mail")
	if !strings.Contains(page, `href="/queues/mail/jobs/in%20voice"`) || !strings.Contains(page, `href="/queues/mail/jobs/in%20voice/delete"`) {
		t.Fatalf("queue page does not link the job and its delete confirmation")
	}
	status, body := s.get(t, "/queues/mail/jobs/in%20voice")
	if status != http.StatusOK || strings.Contains(body, "<script>alert") || !strings.Contains(body, "&lt;script&gt;") ||
		!strings.Contains(body, "smtp &lt;451&gt;") || !strings.Contains(body, `data-testid="job-state">Waiting`) {
		t.Fatalf("job page: %d", status)
	}
	if status, _ := s.get(t, "/queues/mail/jobs/nobody"); status != http.StatusNotFound {
		t.Fatalf("missing job page: %d", status)
	}
	status, body = s.get(t, "/queues/mail/jobs/in%20voice/delete")
	if status != http.StatusOK || !strings.Contains(body, "This deletes job in voice of queue mail") || !strings.Contains(body, "cannot be undone") {
		t.Fatalf("confirmation: %d %s", status, body)
	}
	status, _, h := s.postForm(t, "/queues/mail/jobs/in%20voice/delete", "/queues/mail/jobs/in%20voice/delete", url.Values{})
	if status != http.StatusSeeOther || h.Get("Location") != "/queues/mail" {
		t.Fatalf("confirmed delete: %d %v", status, h)
	}
	if status, _ := s.get(t, "/api/v1/queues/mail/jobs/in%20voice"); status != http.StatusNotFound {
		t.Fatalf("job still there: %d", status)
	}
}

// Requeue all and delete all on the page say what they will do, with the count, before a
// post does it; pause and resume are buttons without JavaScript too.
func TestDeadBulkAndPausePages(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	ctx := context.Background()
	seedDeadJobs(t, s.rdb, "mail", 1500)
	status, body := s.get(t, "/queues/mail/dead/requeue")
	if status != http.StatusOK || !strings.Contains(body, "each of the 1,500 dead jobs of queue mail back") {
		t.Fatalf("requeue confirmation: %d %s", status, body)
	}
	if strings.Contains(body, "bg-rose-600") {
		t.Error("requeueing, which deletes nothing, is confirmed with a red button")
	}
	status, _, _ = s.postForm(t, "/queues/mail/dead/requeue", "/queues/mail/dead/requeue", url.Values{})
	if status != http.StatusSeeOther {
		t.Fatalf("requeue: %d", status)
	}
	if _, page := s.get(t, "/queues/mail"); !strings.Contains(page, "Requeued 1,500 dead jobs.") {
		t.Fatalf("no outcome on the queue page")
	}
	if status, body := s.get(t, "/queues/mail/dead/delete"); status != http.StatusOK || !strings.Contains(body, "no dead job") {
		t.Fatalf("delete confirmation with nothing dead: %d", status)
	}
	status, _, _ = s.postForm(t, "/queues/mail", "/queues/mail/pause", url.Values{})
	if status != http.StatusSeeOther || s.rdb.Exists(ctx, redisrepo.DefaultKeys.QueuePaused("mail")).Val() != 1 {
		t.Fatalf("pause form: %d", status)
	}
	if _, page := s.get(t, "/queues/mail"); !strings.Contains(page, "are <strong>not</strong> stopped") || !strings.Contains(page, "Resume polls") {
		t.Fatalf("paused page does not say so")
	}
	s.postForm(t, "/queues/mail", "/queues/mail/resume", url.Values{})
	if s.rdb.Exists(ctx, redisrepo.DefaultKeys.QueuePaused("mail")).Val() != 0 {
		t.Fatal("resume form did not resume")
	}
}

// The jobs page: a tab and count per state, previous/next, the search box, open by id.
func TestJobsPage(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	seedDeadJobs(t, s.rdb, "mail", 120)
	status, body := s.get(t, "/queues/mail/jobs?state=dead")
	if status != http.StatusOK || !strings.Contains(body, `data-testid="count-dead">120`) || !strings.Contains(body, `data-testid="job-search"`) ||
		strings.Contains(body, `data-testid="jobs-prev"`) {
		t.Fatalf("page 1: %d", status)
	}
	next := regexpFind(t, body, `href="([^"]*)" class="btn-ghost" rel="next"`)
	status, body = s.get(t, strings.ReplaceAll(next, "&amp;", "&"))
	if status != http.StatusOK || !strings.Contains(body, `data-testid="jobs-prev"`) || strings.Contains(body, `data-job="job-00119"`) {
		t.Fatalf("page 2: %d", status)
	}
	status, _, h := s.do(t, http.MethodGet, "/queues/mail/jobs?id=job-00001", "", "")
	if status != http.StatusSeeOther || h.Get("Location") != "/queues/mail/jobs/job-00001" {
		t.Fatalf("open by id: %d %v", status, h)
	}
	if status, _ := s.get(t, "/queues/mail/jobs?state=dead&cursor=nope"); status != http.StatusBadRequest {
		t.Fatalf("forged cursor on the page: %d", status)
	}
}

// Deleting a limiter on its page asks first; built-in ones say why they cannot be.
func TestLimiterDeletePage(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	s.do(t, http.MethodPut, "/api/v1/limiters/api", "application/json", `{"algorithm":"fixed_window","limit":5,"window_ms":1000}`)
	status, body := s.get(t, "/limiters/api/delete")
	if status != http.StatusOK || !strings.Contains(body, "This deletes policy api") {
		t.Fatalf("confirmation: %d", status)
	}
	status, _, h := s.postForm(t, "/limiters/api/delete", "/limiters/api/delete", url.Values{})
	if status != http.StatusSeeOther || h.Get("Location") != "/limiters" {
		t.Fatalf("delete: %d", status)
	}
	if _, body := s.get(t, "/limiters/default/delete"); !strings.Contains(body, "built in") || strings.Contains(body, "confirm-delete-limiter") {
		t.Fatalf("default offered for deletion")
	}
	status, body, _ = s.postForm(t, "/limiters/default", "/limiters/default/delete", url.Values{})
	if status != http.StatusConflict || !strings.Contains(body, "built in") {
		t.Fatalf("posting a delete of default: %d", status)
	}
}

// The board's CSV: every player once in rank order, across pages of the cursor paging, with
// formula-like player ids quoted; the entries page has the total, a jump to a rank and a
// previous page.
func TestBoardExportAndEntriesPaging(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	ctx := context.Background()
	const n = 2500
	pipe := s.rdb.Pipeline()
	for i := 0; i < n; i++ {
		pipe.ZAdd(ctx, "leaderboard:game", redis.Z{Score: float64(i / 3), Member: fmt.Sprintf("p%04d", i)}) // ties
	}
	pipe.ZAdd(ctx, "leaderboard:game", redis.Z{Score: 1e6, Member: "=cmd|' /C calc'!A0"}, redis.Z{Score: 1e6 - 1, Member: "a,\"b\""})
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/boards/game/export.csv", "/api/v1/boards/game/export.csv"} {
		status, body, h := s.do(t, http.MethodGet, path, "", "")
		if status != http.StatusOK || !strings.Contains(h.Get("Content-Disposition"), `filename="game.csv"`) {
			t.Fatalf("%s: %d %v", path, status, h)
		}
		rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != n+3 || rows[1][1] != "'=cmd|' /C calc'!A0" || rows[2][1] != `a,"b"` || rows[1][0] != "1" || rows[n+2][0] != strconv.Itoa(n+2) {
			t.Fatalf("%d rows; first %q %q, last %q", len(rows), rows[1], rows[2], rows[len(rows)-1])
		}
		players := map[string]bool{}
		for _, r := range rows[1:] {
			players[r[1]] = true
		}
		if len(players) != n+2 {
			t.Fatalf("%d distinct players", len(players))
		}
	}
	status, body := s.get(t, "/boards/game/entries?rank=1001")
	if status != http.StatusOK || !strings.Contains(body, `data-testid="entries-total">2,502`) || !strings.Contains(body, "rank=951") ||
		!strings.Contains(body, `rel="next"`) {
		t.Fatalf("rank 1001: %d", status)
	}
	if status, _ := s.get(t, "/boards/game/entries?rank=0"); status != http.StatusBadRequest {
		t.Fatalf("rank 0: %d", status)
	}
	if status, body := s.get(t, "/boards/game/entries?rank=99999"); status != http.StatusOK || !strings.Contains(body, "No more players") {
		t.Fatalf("past the end: %d", status)
	}
	status, body = s.get(t, "/api/v1/boards/game/entries?limit=10")
	if status != http.StatusOK || !strings.Contains(body, `"total":2502`) {
		t.Fatalf("API entries total: %s", body)
	}
}
