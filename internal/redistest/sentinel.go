package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// SentinelMasterName is the name the test sentinels monitor the master under.
const SentinelMasterName = "zpulse"

// Sentinel is a master, one replica and two sentinels (quorum 1) on loopback. Which of Data is
// the master changes with each failover; ask MasterAddr.
type Sentinel struct {
	MasterName string
	Data       []*Server // the master and the replica, in start order
	Sentinels  []*Server

	failoverMu sync.Mutex // one failover at a time, whichever tests ask
}

// Sentinel timings: a replica that stops answering is down after downAfter, and a failover
// that has not finished within failoverTimeout is abandoned. Short, so a failover takes
// seconds; not so short that a loaded CI machine sees a healthy master as down.
const (
	sentinelDownAfter       = 2 * time.Second
	sentinelFailoverTimeout = 6 * time.Second
	sentinelCount           = 2
)

var sharedSentinel lazySetup[*Sentinel]

// SharedSentinel returns the package's Sentinel setup, started on first use and stopped by Main.
func SharedSentinel(t testing.TB) *Sentinel {
	t.Helper()
	return sharedSentinel.get(t, "sentinel", StartSentinel)
}

// SentinelClient returns a failover client of the package's Sentinel setup (started on first
// use), with the master flushed for this test, closed after it.
func SentinelClient(t testing.TB) *redis.Client {
	t.Helper()
	s := SharedSentinel(t)
	rdb := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: s.MasterName, SentinelAddrs: s.SentinelAddrs()})
	if err := rdb.FlushAll(context.Background()).Err(); err != nil {
		rdb.Close()
		t.Fatalf("redistest: flush sentinel master: %v", err)
	}
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// StartSentinel starts a master, a replica of it and two sentinels monitoring it with quorum
// 1, and waits until the replica is in sync and every sentinel knows it, so that a failover
// can start at once. The caller closes it.
func StartSentinel() (*Sentinel, error) {
	s := &Sentinel{MasterName: SentinelMasterName}
	// Diskless sync without its default 5 s delay: a demoted master resyncs at once.
	master, err := startServer(nil, []string{"--repl-diskless-sync-delay", "0"})
	if err != nil {
		return nil, fmt.Errorf("start master: %w", err)
	}
	s.Data = append(s.Data, master)
	host, port, _ := net.SplitHostPort(master.Addr)
	replica, err := startServer(nil, []string{"--repl-diskless-sync-delay", "0", "--replicaof", host, port})
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("start replica: %w", err)
	}
	s.Data = append(s.Data, replica)
	conf := func(p int) string {
		return fmt.Sprintf("port %d\nsentinel resolve-hostnames no\nsentinel monitor %s %s %s 1\n"+
			"sentinel down-after-milliseconds %[2]s %[5]d\nsentinel failover-timeout %[2]s %[6]d\nsentinel parallel-syncs %[2]s 1\n",
			p, s.MasterName, host, port, sentinelDownAfter.Milliseconds(), sentinelFailoverTimeout.Milliseconds())
	}
	for range sentinelCount {
		sen, err := startServer(conf, nil)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("start sentinel: %w", err)
		}
		s.Sentinels = append(s.Sentinels, sen)
	}
	ctx := context.Background()
	if err := Poll(30*time.Second, func() error { return s.settled(ctx, master.Addr) }); err != nil {
		err = fmt.Errorf("sentinel setup not ready: %w\n%s", err, s.logs())
		s.Close()
		return nil, err
	}
	return s, nil
}

// SentinelAddrs returns the sentinels' addresses.
func (s *Sentinel) SentinelAddrs() []string {
	addrs := make([]string, len(s.Sentinels))
	for i, n := range s.Sentinels {
		addrs[i] = n.Addr
	}
	return addrs
}

// URL returns the REDIS_URL of this setup in the form zpulse documents:
// redis://sentinel,sentinel?master_name=NAME.
func (s *Sentinel) URL() string {
	return "redis://" + strings.Join(s.SentinelAddrs(), ",") + "?master_name=" + s.MasterName
}

// MasterAddr returns the master's address as the first sentinel reports it.
func (s *Sentinel) MasterAddr(ctx context.Context) (string, error) {
	sc := redis.NewSentinelClient(&redis.Options{Addr: s.Sentinels[0].Addr, MaxRetries: -1})
	defer sc.Close()
	hp, err := sc.GetMasterAddrByName(ctx, s.MasterName).Result()
	if err != nil {
		return "", fmt.Errorf("SENTINEL GET-MASTER-ADDR-BY-NAME: %w", err)
	}
	return net.JoinHostPort(hp[0], hp[1]), nil
}

// Failover has the first sentinel fail the master over to the replica (SENTINEL FAILOVER),
// waits until every sentinel reports the new master and it answers as a master, then settles
// the setup so that the next test (or failover) starts sound: Sentinel itself turns the old
// master into a replica only 8 s after it sees it again (a fixed delay in Sentinel), so
// Failover sends that REPLICAOF at once and waits until the replica is in sync and known to
// every sentinel. It returns the new master's address.
func (s *Sentinel) Failover(t testing.TB) string {
	t.Helper()
	s.failoverMu.Lock()
	defer s.failoverMu.Unlock()
	ctx := context.Background()
	old, err := s.MasterAddr(ctx)
	if err != nil {
		t.Fatalf("redistest: failover: %v", err)
	}
	sc := redis.NewSentinelClient(&redis.Options{Addr: s.Sentinels[0].Addr, MaxRetries: -1})
	defer sc.Close()
	// A sentinel refuses while it still lacks a replica it can promote (NOGOODSLAVE) or a
	// failover is under way (INPROG); both pass as it catches up.
	err = Poll(failoverGuard, func() error { return sc.Failover(ctx, s.MasterName).Err() })
	if err != nil {
		t.Fatalf("redistest: SENTINEL FAILOVER: %v\n%s", err, s.logs())
	}
	var now string
	err = Poll(failoverGuard, func() error {
		if now, err = s.MasterAddr(ctx); err != nil {
			return err
		}
		if now == old {
			// A failover the sentinel gave up on (-failover-abort-slave-timeout: the replica
			// did not answer as master in time, on a busy machine) is not tried again by
			// itself: ask again; while one is under way the sentinel refuses (INPROG).
			_ = sc.Failover(ctx, s.MasterName).Err()
			return errors.New("still the old master")
		}
		return s.promoted(ctx, now)
	})
	if err != nil {
		t.Fatalf("redistest: failover from %s: %v\n%s", old, err, s.logs())
	}
	host, port, _ := net.SplitHostPort(now)
	demoted := redis.NewClient(&redis.Options{Addr: old, MaxRetries: -1})
	err = demoted.ReplicaOf(ctx, host, port).Err()
	demoted.Close()
	if err != nil {
		t.Fatalf("redistest: REPLICAOF on the old master %s: %v", old, err)
	}
	if err := Poll(30*time.Second, func() error { return s.settled(ctx, now) }); err != nil {
		t.Fatalf("redistest: after the failover to %s: %v\n%s", now, err, s.logs())
	}
	return now
}

// promoted says why master is not yet the master for every sentinel and for itself.
func (s *Sentinel) promoted(ctx context.Context, master string) error {
	for _, sen := range s.Sentinels {
		sc := redis.NewSentinelClient(&redis.Options{Addr: sen.Addr, MaxRetries: -1})
		hp, err := sc.GetMasterAddrByName(ctx, s.MasterName).Result()
		sc.Close()
		if err != nil {
			return fmt.Errorf("sentinel %s: %w", sen.Addr, err)
		}
		if got := net.JoinHostPort(hp[0], hp[1]); got != master {
			return fmt.Errorf("sentinel %s reports master %s, not %s", sen.Addr, got, master)
		}
	}
	rdb := redis.NewClient(&redis.Options{Addr: master, MaxRetries: -1})
	defer rdb.Close()
	info, err := rdb.Info(ctx, "replication").Result()
	if err != nil {
		return fmt.Errorf("%s: %w", master, err)
	}
	if !strings.Contains(info, "role:master") {
		return fmt.Errorf("%s is not a master yet", master)
	}
	return nil
}

// settled says why the setup is not yet a sound master at addr with its replica in sync and
// known to every sentinel, with no failover under way.
func (s *Sentinel) settled(ctx context.Context, master string) error {
	for _, d := range s.Data {
		rdb := redis.NewClient(&redis.Options{Addr: d.Addr, MaxRetries: -1})
		info, err := rdb.Info(ctx, "replication").Result()
		rdb.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", d.Addr, err)
		}
		_, port, _ := net.SplitHostPort(master)
		switch {
		case d.Addr == master && !strings.Contains(info, "role:master"):
			return fmt.Errorf("%s is not a master yet", d.Addr)
		case d.Addr != master && (!strings.Contains(info, "master_port:"+port+"\r") || !strings.Contains(info, "master_link_status:up")):
			return fmt.Errorf("%s does not replicate %s in sync yet", d.Addr, master)
		}
	}
	for _, sen := range s.Sentinels {
		sc := redis.NewSentinelClient(&redis.Options{Addr: sen.Addr, MaxRetries: -1})
		err := sentinelSettled(ctx, sc, s.MasterName, master)
		sc.Close()
		if err != nil {
			return fmt.Errorf("sentinel %s: %w", sen.Addr, err)
		}
	}
	return nil
}

func sentinelSettled(ctx context.Context, sc *redis.SentinelClient, name, master string) error {
	hp, err := sc.GetMasterAddrByName(ctx, name).Result()
	if err != nil {
		return err
	}
	if got := net.JoinHostPort(hp[0], hp[1]); got != master {
		return fmt.Errorf("reports master %s, not %s", got, master)
	}
	m, err := sc.Master(ctx, name).Result()
	if err != nil {
		return err
	}
	if m["flags"] != "master" {
		return fmt.Errorf("master flags %q", m["flags"])
	}
	replicas, err := sc.Replicas(ctx, name).Result()
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(replicas, func(r map[string]string) bool { return r["flags"] == "slave" }) {
		return fmt.Errorf("no healthy replica known: %v", replicas)
	}
	return nil
}

func (s *Sentinel) logs() string {
	var b strings.Builder
	for _, n := range append(slices.Clone(s.Data), s.Sentinels...) {
		fmt.Fprintf(&b, "--- %s\n%s", n.Addr, n.Log())
	}
	return b.String()
}

// Close stops every server and removes their directories.
func (s *Sentinel) Close() {
	for _, n := range append(slices.Clone(s.Sentinels), s.Data...) {
		n.Close()
	}
}

// failoverGuard bounds the waits of a Sentinel failover: each waits for its event (the
// sentinel takes the order, a replica becomes master) and fails only on a hang. On a machine
// whose cores are all busy a promotion took over 30 s.
const failoverGuard = 2 * time.Minute
