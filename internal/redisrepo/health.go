package redisrepo

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// Health reads every master zpulse writes to, now: on a Cluster every master of the slot map
// (reloaded first, so a promotion is seen) is PINGed, and the slots each serves are read from
// one that answers; behind Sentinel (opened from a URL) the sentinels are asked which master
// they name, and it is PINGed through the client; one server is PINGed. The caller bounds it
// with ctx (readiness gives it a second). Its cost on a Cluster: a CLUSTER SLOTS (the reload),
// then a PING of every master, and a CLUSTER SLOTS and CLUSTER INFO of one that answers. A
// Cluster whose state is fail (every slot refused) is Unavailable whoever answers PING.
func (s *Services) Health(ctx context.Context) domain.RedisHealth {
	switch rdb := s.Client.(type) {
	case *redis.ClusterClient:
		return clusterHealth(ctx, rdb)
	case *redis.Client:
		if s.sentinels != nil {
			return s.sentinels.health(ctx, rdb)
		}
		m := domain.MasterState{Addr: rdb.Options().Addr, Up: true}
		if err := s.Ping(ctx); err != nil {
			m.Up, m.Error = false, domain.ErrorMessage(err)
		}
		return domain.RedisHealth{Topology: "single", Masters: []domain.MasterState{m}}
	}
	return domain.RedisHealth{Unknown: "unknown client"}
}

// clusterHealth is Health on a Cluster.
func clusterHealth(ctx context.Context, c *redis.ClusterClient) domain.RedisHealth {
	h := domain.RedisHealth{Topology: "cluster"}
	var mu sync.Mutex
	var slots []redis.ClusterSlot
	var claimed bool  // one master that answers is asked for the slots and the cluster's state
	var failed string // the master that reported cluster_state:fail
	err := c.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
		m := domain.MasterState{Addr: node.Options().Addr, Up: true}
		if err := node.Ping(ctx).Err(); err != nil {
			m.Up, m.Error = false, err.Error()
		}
		mu.Lock()
		h.Masters = append(h.Masters, m)
		ask := m.Up && !claimed
		claimed = claimed || ask
		mu.Unlock()
		if !ask {
			return nil
		}
		read, err := node.ClusterSlots(ctx).Result()
		info, ierr := node.ClusterInfo(ctx).Result()
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			slots = read
		}
		if ierr == nil && strings.Contains(info, "cluster_state:fail") {
			failed = m.Addr
		}
		return nil
	})
	if err != nil {
		h.Unknown = "no Redis Cluster node answers: " + err.Error()
		return h
	}
	if failed != "" {
		// Every slot is refused (CLUSTERDOWN), e.g. a master with no replica is down while
		// cluster-require-full-coverage is yes: the masters that answer serve nothing.
		h.Unknown = "the Redis Cluster is down (" + failed + " reports cluster_state:fail): every slot is refused"
	}
	first := map[string]int{}
	ranges := map[string][]string{}
	for _, s := range slots {
		if len(s.Nodes) == 0 {
			continue
		}
		addr := s.Nodes[0].Addr
		r := strconv.Itoa(s.Start) + "-" + strconv.Itoa(s.End)
		if s.Start == s.End {
			r = strconv.Itoa(s.Start)
		}
		ranges[addr] = append(ranges[addr], r)
		if f, ok := first[addr]; !ok || s.Start < f {
			first[addr] = s.Start
		}
	}
	for i := range h.Masters {
		rs := ranges[h.Masters[i].Addr]
		slices.SortFunc(rs, func(a, b string) int { return leadingInt(a) - leadingInt(b) })
		h.Masters[i].Slots = strings.Join(rs, ",")
	}
	slices.SortFunc(h.Masters, func(a, b domain.MasterState) int {
		fa, oka := first[a.Addr]
		fb, okb := first[b.Addr]
		if oka && okb && fa != fb {
			return fa - fb
		}
		return strings.Compare(a.Addr, b.Addr)
	})
	return h
}

// leadingInt is the number a slot range starts with.
func leadingInt(r string) int {
	n, _ := strconv.Atoi(strings.SplitN(r, "-", 2)[0])
	return n
}

// sentinels are the sentinels of a Sentinel REDIS_URL, asked which master they name.
type sentinels struct {
	master  string
	clients []*redis.SentinelClient
}

func newSentinels(cfg *redis.UniversalOptions) *sentinels {
	s := &sentinels{master: cfg.MasterName}
	for _, addr := range cfg.Addrs {
		s.clients = append(s.clients, redis.NewSentinelClient(&redis.Options{
			Addr: addr, Username: cfg.SentinelUsername, Password: cfg.SentinelPassword, TLSConfig: cfg.TLSConfig,
			MaxRetries: maxRetries, DialTimeout: dialTimeout, ContextTimeoutEnabled: true,
		}))
	}
	return s
}

// health asks the sentinels in turn for the master's address and PINGs it through rdb (the
// failover client, which follows the same sentinels).
func (s *sentinels) health(ctx context.Context, rdb *redis.Client) domain.RedisHealth {
	h := domain.RedisHealth{Topology: "sentinel"}
	var addr string
	var last error
	for _, c := range s.clients {
		a, err := c.GetMasterAddrByName(ctx, s.master).Result()
		if err == nil && len(a) == 2 {
			addr = a[0] + ":" + a[1]
			break
		}
		last = err
	}
	if addr == "" {
		if last == nil {
			last = errors.New("no answer")
		}
		h.Unknown = "no sentinel names the master " + strconv.Quote(s.master) + ": " + last.Error()
		return h
	}
	m := domain.MasterState{Addr: addr, Up: true}
	if err := rdb.Ping(ctx).Err(); err != nil {
		m.Up, m.Error = false, err.Error()
	}
	h.Masters = []domain.MasterState{m}
	return h
}

// Close closes the sentinel clients.
func (s *sentinels) Close() error {
	var first error
	for _, c := range s.clients {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// healthNotice keeps the latest Health's note for the pages' banner, read at every tick of
// the watcher: Notice never waits for Redis; when the note is older than noticeEvery it
// starts one Health in the background (at most one at a time). It also remembers the masters
// it saw, to tell a failover: a master that was not one before (a promoted replica).
type healthNotice struct {
	mu       sync.Mutex
	at       time.Time
	text     string
	reading  bool
	masters  map[string]bool // the masters of the last read that knew them
	failedAt time.Time       // when the last read saw a new master (zero: never)
}

// noticeEvery is how old the banner's notice may get: a Cluster pays one Health (1 + 2 +
// masters commands) this often while pages are open, Sentinel 2.
const noticeEvery = time.Second

// FailoverNoteFor is how long the banner says Redis failed over.
const FailoverNoteFor = time.Minute

// Notice is the banner's note while Redis answers: on a Cluster with some masters down, which
// ones and their slots (domain.RedisHealth.Summary); after a failover (a Cluster's replica
// promoted, or the master Sentinel names changed), for FailoverNoteFor, when it happened and
// that the writes of the second before may have been lost (Redis replicates asynchronously);
// "" otherwise, and always on one server. It returns at once, with what the last background
// read found.
func (s *Services) Notice() string {
	if _, cluster := s.Client.(*redis.ClusterClient); !cluster && s.sentinels == nil {
		return ""
	}
	n := &s.notice
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.reading && time.Since(n.at) >= noticeEvery {
		n.reading = true
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			h := s.Health(ctx)
			cancel()
			n.mu.Lock()
			defer n.mu.Unlock()
			n.saw(h, time.Now())
		}()
	}
	return n.text
}

// saw records a Health read at now and makes the note. Called with n.mu held.
func (n *healthNotice) saw(h domain.RedisHealth, now time.Time) {
	n.at, n.reading = now, false
	if h.Unknown == "" && len(h.Masters) > 0 {
		masters := map[string]bool{}
		for _, m := range h.Masters {
			masters[m.Addr] = true
		}
		for addr := range masters {
			if n.masters != nil && !n.masters[addr] {
				n.failedAt = now
			}
		}
		n.masters = masters
	}
	switch {
	case h.Readiness() == domain.Degraded:
		n.text = h.Summary()
	case !n.failedAt.IsZero() && now.Sub(n.failedAt) < FailoverNoteFor:
		n.text = "Redis failed over at " + n.failedAt.UTC().Format("15:04:05") + " UTC; changes from the last second before it may have been lost (Redis replicates asynchronously), and the pages show what the new master holds."
	default:
		n.text = ""
	}
}
