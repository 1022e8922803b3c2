package store

import (
	"strconv"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// A cache fed names from requests stays bounded: past TTLCacheMax, a put drops the oldest
// fresh entry (stale ones first), and what was put last is kept.
func TestTTLCacheIsBounded(t *testing.T) {
	t.Parallel()
	clock := domain.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := NewTTLCache[int](time.Hour, clock)
	for i := range TTLCacheMax + 10 {
		c.Put(strconv.Itoa(i), i)
		clock.Advance(time.Millisecond)
	}
	if n := len(c.entries); n != TTLCacheMax {
		t.Errorf("%d entries, want at most %d", n, TTLCacheMax)
	}
	if _, ok := c.Peek("0"); ok {
		t.Error("the oldest entry is still there")
	}
	if v, ok := c.Peek(strconv.Itoa(TTLCacheMax + 9)); !ok || v != TTLCacheMax+9 {
		t.Error("the newest entry is missing")
	}
}
