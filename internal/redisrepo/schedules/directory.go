package schedules

import (
	"context"
	"maps"
	"sort"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Directory is the live watcher's reader of the schedules (topic "schedules"): it remembers
// the index (name -> queue) it read last, so one pipelined read takes the index and every
// schedule it named; when the index changed, that read only learnt what to read, and the
// watcher reads again at once (panels.Kind.Plan's false).
type Directory struct {
	mu    sync.Mutex
	index map[string]string
}

// NewDirectory returns a reader that knows no schedule yet.
func NewDirectory() *Directory { return &Directory{index: map[string]string{}} }

// Plan adds the read of the index and of every schedule it named last time to pipe, and
// returns the decoder: the schedules sorted by name, or false when the index changed (read
// again).
func (d *Directory) Plan(ctx context.Context, pipe redis.Pipeliner, keys store.Keys) func() ([]domain.Schedule, bool) {
	d.mu.Lock()
	known := maps.Clone(d.index)
	d.mu.Unlock()
	idx := pipe.HGetAll(ctx, keys.ScheduleIndex())
	cmds := make(map[string]*redis.MapStringStringCmd, len(known))
	for name, queue := range known {
		cmds[name] = pipe.HGetAll(ctx, keys.Schedule(queue, name))
	}
	return func() ([]domain.Schedule, bool) {
		index, err := idx.Result()
		if err != nil {
			return nil, false
		}
		changed := !maps.Equal(index, known)
		if changed {
			d.mu.Lock()
			d.index = index
			d.mu.Unlock()
			return nil, false
		}
		out := make([]domain.Schedule, 0, len(index))
		for name, cmd := range cmds {
			if h := cmd.Val(); len(h) > 0 {
				out = append(out, decode(name, index[name], h))
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
		return out, true
	}
}
