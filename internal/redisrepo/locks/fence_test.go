package locks

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// A corrupt fencing counter (another type, text, a counter at 2^63-1) refuses the acquire
// before the lock is set: no lock:x is left with a token nobody received, and the counter is
// as it was. A counter fixed by hand gives the next token again.
func TestAcquireChecksTheFenceFirst(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		lk, _ := openLocks(rdb, nil)
		for name, c := range map[string]struct {
			plant func(key string)
			code  string
		}{
			"list": {func(k string) { rdb.RPush(ctx, k, "1") }, domain.CodeWrongType},
			"text": {func(k string) { rdb.Set(ctx, k, "abc", 0) }, domain.ECONFLICT},
			"max":  {func(k string) { rdb.Set(ctx, k, "9223372036854775807", 0) }, domain.ECONFLICT},
			"big":  {func(k string) { rdb.Set(ctx, k, "99999999999999999999", 0) }, domain.ECONFLICT},
		} {
			fence := "{lock:" + name + "}:fence"
			c.plant(fence)
			before := rdb.Dump(ctx, fence).Val()
			_, err := lk.Acquire(ctx, name, domain.LockOptions{TTL: time.Minute})
			if domain.ErrorCode(err) != c.code || !strings.Contains(domain.ErrorMessage(err), fence) {
				t.Errorf("%s: acquire = %v, want %s naming %s", name, err, c.code, fence)
			}
			if n := rdb.Exists(ctx, "lock:"+name, "{lock:"+name+"}:meta").Val(); n != 0 {
				t.Errorf("%s: %d of the lock's keys left set", name, n)
			}
			if rdb.Dump(ctx, fence).Val() != before {
				t.Errorf("%s: the fencing counter changed", name)
			}
		}
		rdb.Set(ctx, "{lock:text}:fence", "41", 0)
		if lease, err := lk.Acquire(ctx, "text", domain.LockOptions{TTL: time.Minute}); err != nil || lease.Fence != 42 {
			t.Errorf("after the counter was fixed: %+v, %v; want fence 42", lease, err)
		}
	})
}
