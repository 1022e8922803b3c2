package queues

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// The dead list carries each job's last error, shortened; the dead jobs group by it, the
// largest group first with its latest death; a search's payload match carries the excerpt
// around the match. One server and the Cluster.
func TestDeadErrorsAndExcerpts(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testDeadErrorsAndExcerpts)
}

func testDeadErrorsAndExcerpts(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()
	q, clock := newTestQueuesOn(t, rdb)
	die := func(id, msg string) {
		t.Helper()
		enqueueWithPayload(t, q, "mail", id, fmt.Sprintf(`{"to":"%s@example.com"}`, id))
		d, ok := poll(t, q, "mail", domain.PollOptions{Lease: time.Minute})
		if !ok || d.ID != id {
			t.Fatalf("poll for %s: %+v", id, d)
		}
		if where, err := q.Nack(ctx, "mail", id, d.Token, 0, msg); err != nil || where != domain.DeadLetter {
			t.Fatalf("nack %s: %v %v", id, where, err)
		}
		clock.Advance(time.Second)
	}
	if _, err := q.PatchSettings(ctx, "mail", domain.QueueSettingsPatch{MaxAttempts: ptr(1)}); err != nil {
		t.Fatal(err)
	}
	long := "smtp: 550 mailbox unavailable " + strings.Repeat("x", 200) + "\nstack trace"
	die("a1", long)
	die("b1", "timeout after 30s")
	die("a2", long)
	die("a3", long)

	page, err := q.Jobs(ctx, "mail", domain.JobListOptions{State: domain.JobDead, Limit: 10})
	if err != nil || len(page.Jobs) != 4 {
		t.Fatalf("dead list = %+v, %v", page, err)
	}
	if page.Jobs[0].ID != "a3" || page.Jobs[0].LastError != domain.ShortError(long) || page.Jobs[2].LastError != "timeout after 30s" {
		t.Errorf("dead list errors = %+v; want each job's last error, shortened", page.Jobs)
	}
	if n := len([]rune(page.Jobs[0].LastError)); n != domain.ShortErrorRunes {
		t.Errorf("shortened error is %d runes; want %d", n, domain.ShortErrorRunes)
	}
	if j, _ := q.Job(ctx, "mail", "a3"); domain.LastError(j.Errors) != long {
		t.Errorf("the job's page lost the whole error: %+v", j.Errors)
	}
	if page, _ := q.Jobs(ctx, "mail", domain.JobListOptions{State: domain.JobWaiting, Limit: 10}); len(page.Jobs) != 0 {
		t.Errorf("waiting = %+v; want none", page.Jobs)
	}

	g, err := q.DeadErrors(ctx, "mail")
	if err != nil {
		t.Fatalf("DeadErrors: %v", err)
	}
	want := []domain.ErrorGroup{{Error: domain.ShortError(long), Count: 3, Latest: "a3"}, {Error: "timeout after 30s", Count: 1, Latest: "b1"}}
	if g.Dead != 4 || g.Scanned != 4 || fmt.Sprint(g.Groups) != fmt.Sprint(want) {
		t.Errorf("groups = %+v; want %+v of 4", g, want)
	}
	if g, err := q.DeadErrors(ctx, "empty"); err != nil || len(g.Groups) != 0 || g.Dead != 0 {
		t.Errorf("no dead jobs: %+v, %v", g, err)
	}

	found, err := q.SearchJobs(ctx, "mail", domain.JobSearchOptions{State: domain.JobDead, Text: "B1@EXAMPLE", Limit: 10})
	if err != nil || len(found.Jobs) != 1 {
		t.Fatalf("search = %+v, %v", found, err)
	}
	m := found.Jobs[0]
	if m.ID != "b1" || m.Match != "payload" || m.Excerpt == nil || m.Excerpt.Match != "b1@example" || m.Excerpt.Before != `{"to":"` ||
		m.LastError != "timeout after 30s" {
		t.Errorf("match = %+v (excerpt %+v); want b1 by its payload, the match marked, its last error", m, m.Excerpt)
	}
	found, _ = q.SearchJobs(ctx, "mail", domain.JobSearchOptions{State: domain.JobDead, Text: "b1", Limit: 10})
	if len(found.Jobs) != 1 || found.Jobs[0].Match != "id" || found.Jobs[0].Excerpt != nil {
		t.Errorf("id match = %+v; want no excerpt", found.Jobs)
	}
}
