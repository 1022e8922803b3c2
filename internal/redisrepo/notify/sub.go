package notify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// maxBatch bounds the changes one callback gets: what arrived together, up to this many.
const maxBatch = 512

// probeTTL keeps a probe key from outliving zpulse by long.
const probeTTL = 10 * time.Second

// sub is the subscription of one master.
type sub struct {
	addr     string
	node     *redis.Client
	ps       *redis.PubSub
	patterns []string
	cancel   context.CancelFunc
	done     chan struct{}

	mu      sync.Mutex
	probeN  int       // the NotifyProbe number this master owns the slot of; -1: not found yet
	sentAt  time.Time // when the latest probe was written; zero: none yet
	seenAt  time.Time // when a probe's event last arrived
	problem string    // why it is not healthy; "" once a probe came back
}

// subscribe starts a master's subscription and the loop that delivers its events.
func (n *Notifier) subscribe(ctx context.Context, addr string, node *redis.Client, patterns []string) *sub {
	ctx, cancel := context.WithCancel(ctx)
	s := &sub{addr: addr, node: node, patterns: patterns, cancel: cancel, done: make(chan struct{}), probeN: -1}
	s.problem = "waiting for the first probe event" + s.where()
	s.ps = node.PSubscribe(ctx, patterns...)
	ch := s.ps.ChannelWithSubscriptions(redis.WithChannelSize(4 * maxBatch))
	go func() {
		defer close(s.done)
		n.deliver(ctx, s, ch)
	}()
	return s
}

// deliver hands each batch of events to discovery and the callback until the channel ends.
func (n *Notifier) deliver(ctx context.Context, s *sub, ch <-chan any) {
	channelPrefix := fmt.Sprintf("__keyspace@%d__:", n.db)
	probePrefix, _, _ := strings.Cut(n.opt.Keys.NotifyProbe(0), "{")
	var changes []store.Change
	var keys []string
	for msg := range ch {
		changes, keys = changes[:0], keys[:0]
		for more := true; more; {
			switch m := msg.(type) {
			case *redis.Subscription:
				if m.Kind == "psubscribe" && m.Count == 1 {
					n.gaps.Add(1) // events of the gap, if any, are lost
					if n.on.OnResubscribed != nil {
						n.on.OnResubscribed()
					}
				}
			case *redis.Message:
				key, ok := strings.CutPrefix(m.Channel, channelPrefix)
				switch {
				case !ok:
				case strings.HasPrefix(key, probePrefix):
					s.sawProbe()
				default:
					changes = append(changes, store.Change{Key: key, Event: m.Payload})
					keys = append(keys, key)
				}
			}
			more = false
			if len(changes) < maxBatch {
				select {
				case msg, more = <-ch:
				default:
				}
			}
		}
		if len(keys) == 0 {
			continue
		}
		if n.opt.Discovery != nil {
			n.opt.Discovery.Saw(ctx, changes)
		}
		if n.on.OnChange != nil {
			n.on.OnChange(ctx, slices.Clone(keys))
		}
	}
}

// follow subscribes to patterns new since the last refresh and drops those gone.
func (s *sub) follow(ctx context.Context, patterns []string) {
	var add, drop []string
	for _, p := range patterns {
		if !slices.Contains(s.patterns, p) {
			add = append(add, p)
		}
	}
	for _, p := range s.patterns {
		if !slices.Contains(patterns, p) {
			drop = append(drop, p)
		}
	}
	if len(add) > 0 {
		_ = s.ps.PSubscribe(ctx, add...)
	}
	if len(drop) > 0 {
		_ = s.ps.PUnsubscribe(ctx, drop...)
	}
	s.patterns = patterns
}

// writeProbe writes the master's probe key, first finding a number whose slot it owns (a
// Cluster master answers MOVED for the others).
func (s *sub) writeProbe(ctx context.Context, keys store.Keys) {
	s.mu.Lock()
	n := max(s.probeN, 0)
	s.mu.Unlock()
	for tries := 0; tries < 256; tries++ {
		now := time.Now()
		err := s.node.Set(ctx, keys.NotifyProbe(n), now.UnixMilli(), probeTTL).Err()
		var rerr redis.Error
		if errors.As(err, &rerr) && strings.HasPrefix(rerr.Error(), "MOVED ") {
			n++
			continue
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if err != nil {
			s.problem = "cannot write the notification probe" + s.where() + ": " + err.Error()
			s.sentAt = time.Time{}
			return
		}
		s.sentAt, s.probeN = now, n
		return
	}
}

// missed says whether the latest probe written did not come back.
func (s *sub) missed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.sentAt.IsZero() && s.seenAt.Before(s.sentAt)
}

func (s *sub) sawProbe() {
	s.mu.Lock()
	s.seenAt, s.problem = time.Now(), ""
	s.mu.Unlock()
}

func (s *sub) healthy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.problem == ""
}

func (s *sub) problemText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.problem
}

func (s *sub) setProblem(p string) {
	s.mu.Lock()
	s.problem = p
	s.mu.Unlock()
}

func (s *sub) where() string {
	if s.addr == "" {
		return ""
	}
	return " on " + s.addr
}

// close ends the subscription and waits for its loop.
func (s *sub) close() {
	s.cancel()
	_ = s.ps.Close()
	<-s.done
}
