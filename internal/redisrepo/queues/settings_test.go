package queues

import (
	"context"
	"sync"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
)

// Patches of different fields from two instances at once both apply: the merge happens in
// Redis, not read in Go and written back whole.
func TestPatchQueueSettingsMergesInRedis(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q, rdb, clock := newTestQueues(t)
	other, _ := openQueues(t, rdb, clock, 4)
	kind, attempts := domain.DelayedQueue, 9
	var wg sync.WaitGroup
	wg.Go(func() { q.PatchSettings(ctx, "jobs", domain.QueueSettingsPatch{Kind: &kind}) })
	wg.Go(func() { other.PatchSettings(ctx, "jobs", domain.QueueSettingsPatch{MaxAttempts: &attempts}) })
	wg.Wait()
	got, err := q.PatchSettings(ctx, "jobs", domain.QueueSettingsPatch{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Kind != kind || got.MaxAttempts != attempts {
		t.Errorf("settings = %+v, want both patches applied", got)
	}
}
