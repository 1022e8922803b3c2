package store

import (
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A storm of failed commands asks for one reload at once and one trailing reload at the end of
// the rate limit, however many errors came meanwhile; a later error, after the limit, reloads
// at once again.
func TestTopologyHealIsRateLimited(t *testing.T) {
	t.Parallel()
	reloaded := make(chan struct{}, 10)
	h := newTopologyHeal(func() { reloaded <- struct{}{} }, time.Hour) // no second reload by time alone
	for range 1000 {
		h.Signal()
	}
	<-reloaded
	if n := h.Reloads(); n != 1 {
		t.Fatalf("%d reloads for a storm within the limit, want 1 (the trailing one waits)", n)
	}
	h.mu.Lock()
	pending := h.pending != nil
	h.pending.Reset(0) // the limit's end, now
	h.mu.Unlock()
	if !pending {
		t.Fatal("no trailing reload scheduled")
	}
	<-reloaded
	if n := h.Reloads(); n != 2 {
		t.Fatalf("%d reloads, want 2", n)
	}
	h.mu.Lock()
	h.last = time.Time{} // the limit passed
	h.mu.Unlock()
	h.Signal()
	<-reloaded
	if n := h.Reloads(); n != 3 {
		t.Fatalf("%d reloads after the limit, want 3", n)
	}
}

// What says the slot map may be wrong: a refused or broken connection, MOVED, ASK, TRYAGAIN,
// CLUSTERDOWN; not a reply that is an answer (nil, WRONGTYPE, a script's error).
func TestTopologySignal(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), true},
		{syscall.ECONNRESET, true},
		{errors.New("MOVED 3999 127.0.0.1:6381"), false}, // a plain error is not a Redis reply
		{redis.Nil, false},
		{nil, false},
	} {
		if got := topologySignal(c.err); got != c.want {
			t.Errorf("topologySignal(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
