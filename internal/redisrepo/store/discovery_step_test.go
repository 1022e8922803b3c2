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

// A key another service wrote after discovery's last refresh is known after the steps that
// cover the keyspace: on a keyspace one step covers, the first step finds it; on one three
// times larger, the steps go on where the last stopped, each making at most StepCalls SCANs
// (COUNT ScanCount, MATCH on the step's pattern), and a pass that began after the key was
// written finds it. So for the lock step (StepLocks: a lock under the lock prefix) and the
// step over an adopted source's pattern (StepAdopted: a key under it).
func TestStepsAreBounded(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		pattern string
		key     func(id string) string
		step    func(d *Discovery, ctx context.Context) error
		known   func(d *Discovery) []string // the keys the step's finds name
	}{
		{"locks", DefaultKeys.LockPrefix + "*", DefaultKeys.Lock,
			func(d *Discovery, ctx context.Context) error { return d.StepLocks(ctx) },
			func(d *Discovery) []string {
				var keys []string
				for _, n := range d.Names(KindLock) {
					keys = append(keys, DefaultKeys.Lock(n))
				}
				return keys
			}},
		{"adopted", "theirs:*", func(id string) string { return "theirs:" + id },
			func(d *Discovery, ctx context.Context) error { return d.StepAdopted(ctx, "theirs:*") },
			func(d *Discovery) []string { return d.AdoptedKeys("theirs:*") }},
	} {
		t.Run(c.name, func(t *testing.T) {
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
					if err := c.step(d, ctx); err != nil {
						t.Fatal(err)
					}
					if len(calls) > StepCalls {
						t.Fatalf("one step made %d SCAN calls, want at most %d", len(calls), StepCalls)
					}
					for _, call := range calls {
						if !strings.Contains(call, fmt.Sprintf("match %s count %d", c.pattern, ScanCount)) {
							t.Fatalf("%s: not a SCAN of %s of COUNT %d", call, c.pattern, ScanCount)
						}
					}
					if slices.Contains(c.known(d), needle) {
						return n
					}
				}
				t.Fatalf("%s not found within %d steps", needle, most)
				return 0
			}
			rdb.Set(ctx, c.key("first"), "tok", time.Minute)
			if n := steps(c.key("first"), 1); n != 1 {
				t.Errorf("found after %d steps, want 1", n)
			}

			pipe := rdb.Pipeline()
			for i := range 3 * StepCalls * ScanCount {
				pipe.Set(ctx, fmt.Sprintf("other:%d", i), "x", 0)
			}
			pipe.Set(ctx, c.key("needle"), "tok", time.Minute)
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
			t.Logf("found after %d steps", steps(c.key("needle"), 6))
		})
	}
}
