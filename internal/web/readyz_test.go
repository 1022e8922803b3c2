package web

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/redistest"
)

// /readyz asks Redis on every call, within a second: while Redis is stalled by a DEBUG SLEEP
// it answers 503 (no cached status, and the client enforces the deadline) long before the
// stall ends. The stall is a minute, so the bound only tells a deadline from none on a busy
// machine; how fast is not the subject.
func TestReadyzDuringStall(t *testing.T) {
	t.Parallel()
	srv, err := redistest.Start() // a Redis of its own: the stall must not hold up other tests
	if err != nil {
		t.Fatal(err)
	}
	rdb, err := redisrepo.Connect("redis://" + srv.Addr) // the production client
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	s := newTestServer(t, "", rdb)
	if status, body := s.get(t, "/readyz"); status != http.StatusOK {
		t.Fatalf("readyz before the stall: %d %s", status, body)
	}
	staller := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1})
	stalled := make(chan error, 1)
	go func() { stalled <- staller.Do(context.Background(), "DEBUG", "SLEEP", "60").Err() }()
	defer func() {
		srv.Close() // ends the sleep at once
		<-stalled
		staller.Close()
	}()
	// Until the sleep starts /readyz answers 200; from then on, 503, each well before the stall ends.
	for {
		start := time.Now()
		status, body := s.get(t, "/readyz")
		if took := time.Since(start); took > 20*time.Second {
			t.Fatalf("readyz took %v (%d %s); want an answer by its deadline (1 s), not at the stall's end", took, status, body)
		}
		if status == http.StatusServiceUnavailable {
			break
		}
		select {
		case err := <-stalled:
			stalled <- err // for the deferred wait
			t.Fatalf("the stall ended (%v) and readyz never answered 503", err)
		default:
		}
	}
}
