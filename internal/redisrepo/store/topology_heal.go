package store

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// HealEvery is the shortest time between two topology reloads TopologyHeal asks for: a storm
// of failed commands (every page's poll on a dead master's slots) costs each instance at most
// one CLUSTER SLOTS per HealEvery, and a promotion is seen within HealEvery of the next
// failed command.
const HealEvery = 250 * time.Millisecond

// TopologyHeal is a go-redis hook on a Cluster client that reloads the slot map at once when a
// command's error says the map may be wrong: a connection that could not be had or broke (a
// master died; its replica is promoted a few seconds later), MOVED or ASK (a slot moved),
// CLUSTERDOWN, TRYAGAIN, READONLY, MASTERDOWN, LOADING. Without it a dead master's slots stay
// mapped to it until something else reloads the map (discovery's sweep, every
// DiscoveryEvery). Reloads are rate-limited: at most one per HealEvery; an error inside that
// time schedules one at its end (trailing), so the last error of a storm is never left
// without a reload. The reload itself is go-redis's (ClusterClient.ReloadState: one CLUSTER
// SLOTS, in the background, coalesced).
type TopologyHeal struct {
	reload func()
	every  time.Duration

	mu      sync.Mutex
	last    time.Time   // when the last reload was asked for
	pending *time.Timer // the trailing reload, when one is scheduled
	reloads atomic.Int64
}

var _ redis.Hook = (*TopologyHeal)(nil)

// NewTopologyHeal returns the hook for a Cluster client; every is the shortest time between
// two reloads (0: HealEvery).
func NewTopologyHeal(c *redis.ClusterClient, every time.Duration) *TopologyHeal {
	return newTopologyHeal(func() { c.ReloadState(context.Background()) }, every)
}

func newTopologyHeal(reload func(), every time.Duration) *TopologyHeal {
	if every <= 0 {
		every = HealEvery
	}
	return &TopologyHeal{reload: reload, every: every}
}

// Reloads is how many reloads the hook asked for.
func (h *TopologyHeal) Reloads() int64 { return h.reloads.Load() }

// Signal asks for a reload: now, unless one was asked for less than every ago; then at the end
// of that time (one trailing reload however many signals come meanwhile).
func (h *TopologyHeal) Signal() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pending != nil {
		return // the trailing reload will see this error's cause too
	}
	wait := h.every - time.Since(h.last)
	if wait <= 0 {
		h.fire()
		return
	}
	h.pending = time.AfterFunc(wait, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.pending = nil
		h.fire()
	})
}

// fire asks for a reload; called with h.mu held (ReloadState only starts one in the background).
func (h *TopologyHeal) fire() {
	h.last = time.Now()
	h.reloads.Add(1)
	h.reload()
}

// topologySignal says whether a command's error may mean the slot map is wrong.
func topologySignal(err error) bool {
	if err == nil || errors.Is(err, redis.Nil) || errors.Is(err, context.Canceled) {
		return false
	}
	return notSent(err) || maybeSent(err) || redis.HasErrorPrefix(err, "MOVED") || redis.HasErrorPrefix(err, "ASK") ||
		redis.HasErrorPrefix(err, "TRYAGAIN")
}

func (h *TopologyHeal) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (h *TopologyHeal) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if topologySignal(err) || (err == nil && topologySignal(cmd.Err())) {
			h.Signal()
		}
		return err
	}
}

func (h *TopologyHeal) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, cmd := range cmds {
			if topologySignal(cmd.Err()) {
				h.Signal()
				break
			}
		}
		return err
	}
}
