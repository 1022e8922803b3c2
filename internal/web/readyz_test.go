package web

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/redistest"
)

// /readyz asks Redis on every call, within a second: while Redis is stalled by a DEBUG SLEEP
// it answers 503 (no cached status, and the client enforces the deadline) long before the
// stall ends. The stall is a minute, so the bound only tells a deadline from none on a busy
// machine; how fast is not the subject.
func TestReadyzDuringStall(t *testing.T) {
	t.Parallel()
	srv, err := redistest.Start() // a Redis of its own: the stall must not hold up other tests
	if err != nil {
		t.Fatal(err)
	}
	rdb, err := redisrepo.Connect("redis://" + srv.Addr) // the production client
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	s := newTestServer(t, "", rdb)
	if status, body := s.get(t, "/readyz"); status != http.StatusOK {
		t.Fatalf("readyz before the stall: %d %s", status, body)
	}
	staller := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1})
	stalled := make(chan error, 1)
	go func() { stalled <- staller.Do(context.Background(), "DEBUG", "SLEEP", "60").Err() }()
	defer func() {
		srv.Close() // ends the sleep at once
		<-stalled
		staller.Close()
	}()
	// Until the sleep starts /readyz answers 200; from then on, 503, each well before the stall ends.
	for {
		start := time.Now()
		status, body := s.get(t, "/readyz")
		if took := time.Since(start); took > 20*time.Second {
			t.Fatalf("readyz took %v (%d %s); want an answer by its deadline (1 s), not at the stall's end", took, status, body)
		}
		if status == http.StatusServiceUnavailable {
			break
		}
		select {
		case err := <-stalled:
			stalled <- err // for the deferred wait
			t.Fatalf("the stall ended (%v) and readyz never answered 503", err)
		default:
		}
	}
}

// /readyz lists every master with up or down: on one server its one master; on a Cluster with
// one master killed (the others serving on) it answers 200 "degraded" naming the dead
// master's slots, zpulse_redis_masters_down counts 1; with every master down, 503.
func TestReadyzReportsEveryMaster(t *testing.T) {
	t.Parallel()
	one := newTestServer(t, "", nil)
	if status, body := one.get(t, "/readyz"); status != http.StatusOK || !strings.Contains(body, `"status":"ready"`) ||
		!strings.Contains(body, `"up":true`) || !strings.Contains(body, `"masters_down":0`) {
		t.Fatalf("readyz on one server: %d %s", status, body)
	}

	c, err := redistest.StartClusterWith("--cluster-require-full-coverage", "no") // a cluster of its own: one master dies
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rdb, err := redisrepo.Connect(c.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	var reg *prometheus.Registry
	var health func(context.Context) domain.RedisHealth
	s := newTestServerWith(t, "", rdb, func(d *Deps) { reg, health = d.Registry, d.Health })
	reg.MustRegister(&BusinessCollector{Read: s.svc.Business, Limit: 2, Health: health})
	if status, body := s.get(t, "/readyz"); status != http.StatusOK || !strings.Contains(body, `"status":"ready"`) || strings.Count(body, `"up":true`) != 3 {
		t.Fatalf("readyz on the Cluster: %d %s", status, body)
	}
	if got := scrape(t, s)["zpulse_redis_masters_down{}"]; got != 0 {
		t.Errorf("zpulse_redis_masters_down = %v, want 0", got)
	}
	c.Nodes[2].Stop()
	status, body := s.get(t, "/readyz")
	if status != http.StatusOK || !strings.Contains(body, `"status":"degraded"`) || !strings.Contains(body, `"masters_down":1`) ||
		!strings.Contains(body, `"slots":"10922-16383"`) || !strings.Contains(body, "slots 10922-16383") {
		t.Fatalf("readyz with a master down: %d %s, want 200 degraded naming slots 10922-16383", status, body)
	}
	if got := scrape(t, s)["zpulse_redis_masters_down{}"]; got != 1 {
		t.Errorf("zpulse_redis_masters_down = %v, want 1", got)
	}
	c.Nodes[0].Stop()
	c.Nodes[1].Stop()
	if status, body := s.get(t, "/readyz"); status != http.StatusServiceUnavailable || !strings.Contains(body, `"status":"unavailable"`) ||
		!strings.Contains(body, `"masters_down":3`) || !strings.Contains(body, `"code":"unavailable"`) {
		t.Fatalf("readyz with every master down: %d %s, want 503", status, body)
	}
}

// The banner shows a notice (a partial outage) while Redis answers, as a status, not an alert.
func TestStatusFragmentNotice(t *testing.T) {
	t.Parallel()
	render := TopicRenderer(bigKey, redisrepo.DefaultKeys.Display(), "")
	html, _ := render(domain.TopicStatus, domain.Admin, live.Status{Available: true, Notice: "Redis degraded: 1 of 3 masters down: a (slots 0-5460)."})
	if s := string(html); !strings.Contains(s, `role="status"`) || !strings.Contains(s, "slots 0-5460") || strings.Contains(s, "Redis unavailable") {
		t.Errorf("notice fragment: %s", s)
	}
}
