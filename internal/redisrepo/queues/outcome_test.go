package queues

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// A write whose reply is lost after Redis applied it is EUNKNOWN ("may or may not have been
// applied"), not EUNAVAILABLE ("nothing changed"); its retry is recognised rather than run
// twice. A read whose reply is lost is just unavailable, and a write that never left is
// unavailable too.
func TestLostReplyIsUnknownOutcome(t *testing.T) {
	t.Parallel()
	direct := redistest.DB(t)
	proxy := redistest.NewProxy(t, redistest.Shared().Addr)
	rdb := redis.NewClient(&redis.Options{Addr: proxy.Addr, DB: direct.Options().DB, MaxRetries: -1, PoolSize: 1})
	t.Cleanup(func() { rdb.Close() })
	q, _ := openQueues(t, rdb, domain.NewManualClock(testNow), 4)
	ctx := context.Background()
	enqueue(t, q, "email-jobs", "warm-up", 1) // the scripts are loaded, the connection made

	proxy.CutReplyTo("lost-reply")
	_, err := q.Enqueue(ctx, "email-jobs", domain.NewJob{ID: "lost-reply", Priority: 1, HasPriority: true})
	wantCode(t, "enqueue whose reply was lost", err, domain.EUNKNOWN)
	if msg := domain.ErrorMessage(err); !strings.Contains(msg, "may or may not have been applied") {
		t.Errorf("message %q should say the change may or may not have been applied", msg)
	}
	if _, err := direct.ZScore(ctx, "queue:email-jobs", "lost-reply").Result(); err != nil {
		t.Fatalf("the job is not in the queue (%v): the cut came before Redis ran the write", err)
	}
	_, err = q.Enqueue(ctx, "email-jobs", domain.NewJob{ID: "lost-reply", Priority: 1, HasPriority: true})
	wantCode(t, "the retried enqueue", err, domain.ECONFLICT)
	if n := direct.ZCard(ctx, "queue:email-jobs").Val(); n != 2 {
		t.Errorf("the queue holds %d jobs, want 2: the retry added one", n)
	}

	// The lease's answer is lost (the settings read before it is answered): the job is
	// leased to nobody until the reaper gives it back, and the poll says the outcome is unknown.
	proxy.CutReplyTo("{queue:email-jobs}:leases")
	_, _, err = q.Poll(ctx, "email-jobs", domain.PollOptions{Lease: domain.MinLease})
	wantCode(t, "leased poll whose reply was lost", err, domain.EUNKNOWN)

	proxy.CutReplyTo("email-jobs")
	_, err = q.View(ctx, "email-jobs")
	wantCode(t, "read whose reply was lost", err, domain.EUNAVAILABLE)

	down := redis.NewClient(&redis.Options{Addr: closedAddr(t), MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { down.Close() })
	qd, _ := openQueues(t, down, nil, 4)
	_, err = qd.Enqueue(ctx, "email-jobs", domain.NewJob{ID: "never-sent", Priority: 1, HasPriority: true})
	wantCode(t, "enqueue to a Redis that cannot be reached", err, domain.EUNAVAILABLE)
}

// closedAddr is an address of 127.0.0.1 where nothing listens.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
