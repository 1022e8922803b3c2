package queues

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// Two instances share the secret that signs job cursors; after Redis loses it, a cursor one
// gives is taken by the other without a restart: the first to need it makes it again, the
// other reads it back when its own does not verify a cursor, or within cursorKeyTTL.
func TestJobCursorSecretHealsAcrossInstances(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	ctx := context.Background()
	clockA, clockB := domain.NewManualClock(testNow), domain.NewManualClock(testNow)
	a, _ := openQueues(t, rdb, clockA, 1)
	b, _ := openQueues(t, rdb, clockB, 1)
	for i := range 6 {
		if _, err := a.Enqueue(ctx, "mail", domain.NewJob{ID: fmt.Sprintf("j%d", i), Priority: 1, HasPriority: true}); err != nil {
			t.Fatal(err)
		}
	}
	page := func(q *Queues, cursor string) domain.JobPage {
		t.Helper()
		p, err := q.Jobs(ctx, "mail", domain.JobListOptions{State: domain.JobWaiting, Limit: 1, Cursor: cursor})
		if err != nil {
			t.Fatalf("page after %q: %v", cursor, err)
		}
		return p
	}
	// Both read the secret; then Redis loses it.
	page(b, page(a, "").Next)
	rdb.Del(ctx, "zpulse:job-cursor-key")
	// b makes it again (its own, so its cursors stay good); a, holding the same, agrees.
	next := page(b, "").Next
	next = page(a, next).Next
	page(b, next)

	// Lost again, and a new instance makes another: a reads it back on the first cursor it
	// does not verify, and b, which gave no such cursor, within cursorKeyTTL.
	rdb.Del(ctx, "zpulse:job-cursor-key")
	c, _ := openQueues(t, rdb, domain.NewManualClock(testNow), 1)
	next = page(a, page(c, "").Next).Next
	page(c, next)
	clockB.Advance(cursorKeyTTL + time.Millisecond)
	page(b, page(c, "").Next)
}
