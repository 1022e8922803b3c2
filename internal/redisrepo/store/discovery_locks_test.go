package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/redistest"
)

// A lock another service took after discovery's last refresh is known after the lock steps
// that cover the keyspace: on a keyspace one step covers, the first step finds it; on one
// three times larger, the steps go on where the last stopped, each making at most
// LockStepCalls SCANs (COUNT ScanCount, MATCH on the lock prefix), and a pass that began after
// the lock was taken finds it.
func TestStepLocksIsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	d := NewDiscovery(rdb, DefaultKeys, nil)
	if err := d.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	var calls []string
	rdb.AddHook(redistest.HookAfter(func(cmd redis.Cmder) {
		if cmd.Name() == "scan" {
			calls = append(calls, fmt.Sprint(cmd.Args()))
		}
	}))
	steps := func(needle string, most int) int {
		t.Helper()
		for n := 1; n <= most; n++ {
			calls = nil
			if err := d.StepLocks(ctx); err != nil {
				t.Fatal(err)
			}
			if len(calls) > LockStepCalls {
				t.Fatalf("one step made %d SCAN calls, want at most %d", len(calls), LockStepCalls)
			}
			for _, c := range calls {
				if !strings.Contains(c, fmt.Sprintf("match %s* count %d", DefaultKeys.LockPrefix, ScanCount)) {
					t.Fatalf("%s: not a SCAN of the locks of COUNT %d", c, ScanCount)
				}
			}
			if slices.Contains(d.Names(KindLock), needle) {
				return n
			}
		}
		t.Fatalf("lock %s not found within %d steps", needle, most)
		return 0
	}
	rdb.Set(ctx, DefaultKeys.Lock("first"), "tok", time.Minute)
	if n := steps("first", 1); n != 1 {
		t.Errorf("found after %d steps, want 1", n)
	}

	pipe := rdb.Pipeline()
	for i := range 3 * LockStepCalls * ScanCount {
		pipe.Set(ctx, fmt.Sprintf("other:%d", i), "x", 0)
	}
	pipe.Set(ctx, DefaultKeys.Lock("needle"), "tok", time.Minute)
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("found after %d steps", steps("needle", 6))
}
