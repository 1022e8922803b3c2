package redisrepo

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// One server: its one master, up.
func TestHealthSingle(t *testing.T) {
	t.Parallel()
	svc := openTest(t, redistest.DB(t), nil)
	h := svc.Health(context.Background())
	if h.Readiness() != domain.Ready || len(h.Masters) != 1 || !h.Masters[0].Up || h.Down() != 0 || svc.Notice() != "" {
		t.Fatalf("health = %+v, want one master up", h)
	}
}

// A Cluster reports every master with its slots: all up is ready; one killed (the others
// serve on: cluster-require-full-coverage no) is degraded, naming the dead master's slots, and
// the banner's notice says so; all killed is unavailable.
func TestHealthCluster(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, err := redistest.StartClusterWith("--cluster-require-full-coverage", "no")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	svc, err := Open(ctx, OpenOptions{URL: c.URL()})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	h := svc.Health(ctx)
	want := []string{"0-5460", "5461-10921", "10922-16383"} // redistest shares the slots as i*16384/3
	if h.Readiness() != domain.Ready || len(h.Masters) != 3 {
		t.Fatalf("health = %+v, want 3 masters up", h)
	}
	for i, m := range h.Masters {
		if !m.Up || m.Slots != want[i] || m.Addr != c.Nodes[i].Addr {
			t.Errorf("master %d = %+v, want %s up with slots %s", i, m, c.Nodes[i].Addr, want[i])
		}
	}
	c.Nodes[1].Stop()
	h = svc.Health(ctx)
	if h.Readiness() != domain.Degraded || h.Down() != 1 || h.Masters[1].Up || h.Masters[1].Error == "" {
		t.Fatalf("health with a master killed = %+v, want degraded, %s down", h, c.Nodes[1].Addr)
	}
	if s := h.Summary(); !strings.Contains(s, "1 of 3 masters down") || !strings.Contains(s, "slots 5461-10921") {
		t.Errorf("summary %q, want the dead master's slots", s)
	}
	// The banner's notice is read in the background: it comes within a read or two.
	if err := redistest.Poll(30*time.Second, func() error {
		if n := svc.Notice(); !strings.Contains(n, "slots 5461-10921") {
			return &domain.Error{Message: "notice " + n}
		}
		return nil
	}); err != nil {
		t.Fatalf("the banner's notice never named the slots: %v", err)
	}
	c.Nodes[0].Stop()
	c.Nodes[2].Stop()
	if h = svc.Health(ctx); h.Readiness() != domain.Unavailable || h.Down() != 3 {
		t.Fatalf("health with every master killed = %+v, want unavailable", h)
	}
}

// Behind Sentinel the master the sentinels name is reported, up; a master name no sentinel
// knows is unavailable.
func TestHealthSentinel(t *testing.T) {
	// Serial: the package's one Sentinel setup (its master, its failovers) is shared by the Sentinel tests.
	ctx := context.Background()
	redistest.SentinelClient(t)
	s := redistest.SharedSentinel(t)
	svc, err := Open(ctx, OpenOptions{URL: s.URL()})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	master, err := s.MasterAddr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h := svc.Health(ctx)
	if h.Topology != "sentinel" || h.Readiness() != domain.Ready || len(h.Masters) != 1 || h.Masters[0].Addr != master {
		t.Fatalf("health = %+v, want the master %s up", h, master)
	}
	unknown, err := Open(ctx, OpenOptions{URL: "redis://" + s.SentinelAddrs()[0] + "?master_name=nosuchmaster"})
	if err != nil {
		t.Fatal(err)
	}
	defer unknown.Close()
	if h := unknown.Health(ctx); h.Readiness() != domain.Unavailable || !strings.Contains(h.Unknown, "nosuchmaster") {
		t.Fatalf("health of an unknown master = %+v, want unavailable naming it", h)
	}
}

// The banner's note: degraded while a master is down, then, once a master it did not know
// appears (a promoted replica, a new Sentinel master), "failed over" for FailoverNoteFor.
func TestHealthNoticeTellsAFailover(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 14, 2, 31, 0, time.UTC)
	up := func(addrs ...string) domain.RedisHealth {
		h := domain.RedisHealth{Topology: "cluster"}
		for _, a := range addrs {
			h.Masters = append(h.Masters, domain.MasterState{Addr: a, Up: true})
		}
		return h
	}
	var n healthNotice
	n.saw(up("a", "b"), at)
	if n.text != "" {
		t.Fatalf("note %q before anything happened", n.text)
	}
	down := up("a", "b")
	down.Masters[1] = domain.MasterState{Addr: "b", Slots: "8192-16383"}
	n.saw(down, at.Add(time.Second))
	if !strings.Contains(n.text, "slots 8192-16383") {
		t.Errorf("note %q while b is down", n.text)
	}
	n.saw(domain.RedisHealth{Unknown: "no node answers"}, at.Add(2*time.Second)) // knows no masters: no failover told
	n.saw(up("a", "c"), at.Add(3*time.Second))
	if want := "Redis failed over at 14:02:34 UTC"; !strings.HasPrefix(n.text, want) {
		t.Errorf("note %q, want it to start %q", n.text, want)
	}
	if n.saw(up("a", "c"), at.Add(3*time.Second+FailoverNoteFor)); n.text != "" {
		t.Errorf("note %q after FailoverNoteFor", n.text)
	}
}

// Behind Sentinel, after a failover the banner's notice says Redis failed over, and Health
// names the new master.
func TestHealthNoticeSentinelFailover(t *testing.T) {
	// Serial: the package's one Sentinel setup (its master, its failovers) is shared by the Sentinel tests.
	ctx := context.Background()
	redistest.SentinelClient(t)
	s := redistest.SharedSentinel(t)
	svc, err := Open(ctx, OpenOptions{URL: s.URL()})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if err := redistest.Poll(30*time.Second, func() error { // the notice has read the master once
		svc.Notice()
		svc.notice.mu.Lock()
		defer svc.notice.mu.Unlock()
		if svc.notice.masters == nil {
			return &domain.Error{Message: "not read yet"}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	master := s.Failover(t)
	if err := redistest.Poll(time.Minute, func() error {
		if n := svc.Notice(); !strings.Contains(n, "Redis failed over at") {
			return &domain.Error{Message: "notice " + n}
		}
		return nil
	}); err != nil {
		t.Fatalf("the banner never said Redis failed over: %v", err)
	}
	if h := svc.Health(ctx); len(h.Masters) != 1 || h.Masters[0].Addr != master || !h.Masters[0].Up {
		t.Errorf("health after the failover = %+v, want the new master %s up", h, master)
	}
}
