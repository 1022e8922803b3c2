package locks

import (
	"context"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// Lock names under zpulse's own prefix are its singleton loops': nobody else takes them.
func TestSingletonLockNamesAreReserved(t *testing.T) {
	t.Parallel()
	lk, _ := newTestLocks(t)
	ctx := context.Background()
	if _, err := lk.Acquire(ctx, "zpulse:queue-reaper", domain.LockOptions{TTL: time.Second}); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("Acquire of a singleton's lock: %v, want EINVALID", err)
	}
	if _, err := lk.Hold(ctx, "zpulse:demo", domain.LockOptions{TTL: time.Second}); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("Hold of a singleton's lock: %v, want EINVALID", err)
	}
}
