package web

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/redistest"
)

// costs are what one request of each hot path may cost, as recorded in the repository:
// round trips to Redis (a command or a pipeline sent by zpulse), commands Redis runs (those
// inside scripts included, from INFO commandstats) and Go heap allocations of the whole
// request through the HTTP handler. Each request's second round trip is its audit-trail
// entry (one script); a lease and its ack are two requests. TestCostsPerRequest fails when a change makes one grow
// past its figure; speed itself is measured by `make bench`, never here. When a change costs
// more on purpose, say why in its commit and raise the figure here (the failure prints the
// new ones); when it costs less, lower it, so the guard keeps the gain.
var costs = map[string]cost{
	"add":                   {RoundTrips: 2, Commands: 13, Allocs: 180},
	"enqueue":               {RoundTrips: 2, Commands: 20, Allocs: 183}, // job types: the type's HSET/HDEL
	"lease+ack":             {RoundTrips: 4, Commands: 60, Allocs: 353}, // job types: lease HGET, ack HGET + move; the ack adds its time to its consumer's minute (a mean per consumer)
	"allow sliding_log":     {RoundTrips: 2, Commands: 13, Allocs: 149},
	"allow fixed_window":    {RoundTrips: 2, Commands: 10, Allocs: 140},
	"allow sliding_counter": {RoundTrips: 2, Commands: 9, Allocs: 140},
	"allow token_bucket":    {RoundTrips: 2, Commands: 9, Allocs: 139},
}

type cost struct{ RoundTrips, Commands, Allocs float64 }

// How far a figure may wander above its record before the guard fails: round trips and
// commands by less than one a request (a cache refreshed now and then adds a few hundredths;
// a request that does one more adds a whole one), allocations by a tenth (the HTTP stack's
// own move a little between Go releases and under the race detector).
const (
	countSlack = 0.5
	allocSlack = 1.10
)

// One add, enqueue, lease and ack, and limiter check costs what costs records, measured on a
// Redis of the test's own (so that commandstats counts this test alone) with the services'
// background loops stopped, every request through the whole handler (middleware, binding,
// the service, its script and bookkeeping, the audit trail).
func TestCostsPerRequest(t *testing.T) {
	srv := redistest.StartArgs(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, PoolSize: 4})
	t.Cleanup(func() { _ = rdb.Close() })
	var trips atomic.Int64
	rdb.AddHook(tripCounter{&trips})
	w := newTestWiring(t, rdb, "", wiringOptions{quiet: true})
	w.deps.OpenAccess = true
	h := NewServer(w.deps)
	n := 0
	do := func(method, path, body string) string {
		t.Helper()
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(rec, req)
		if rec.Code/100 != 2 {
			t.Fatalf("%s %s %s: %d %s", method, path, body, rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	serve := func(path, body string) string { t.Helper(); return do(http.MethodPost, path, body) }
	next := func() string { n++; return strconv.Itoa(n % 100) }
	ops := map[string]func(){
		"add":     func() { serve("/api/v1/boards/costs/scores", `{"player":"p`+next()+`","points":1}`) },
		"enqueue": func() { serve("/api/v1/queues/costs/jobs", `{"priority":1,"payload":{"to":"ann@example.org"}}`) },
		"lease+ack": func() {
			body := serve("/api/v1/queues/leased/poll", `{"lease_ms":60000,"consumer":"w1"}`)
			id, token := field(body, "id"), field(body, "token")
			serve("/api/v1/queues/leased/jobs/"+id+"/ack", `{"token":"`+token+`"}`)
		},
	}
	for _, a := range []string{"sliding_log", "fixed_window", "sliding_counter", "token_bucket"} {
		do(http.MethodPut, "/api/v1/limiters/"+a, `{"algorithm":"`+a+`","limit":1000000,"window_ms":60000,"rate_per_s":1000,"burst":1000000}`)
		ops["allow "+a] = func() { serve("/api/v1/limiters/"+a+"/check", `{"client":"c`+next()+`"}`) }
	}
	for range 300 { // jobs for the leases
		serve("/api/v1/queues/leased/jobs", `{"priority":1,"payload":{"to":"ann@example.org"}}`)
	}
	const runs = 100
	for _, name := range slices.Sorted(maps.Keys(costs)) {
		op, want := ops[name], costs[name]
		for range 10 { // the first calls load scripts, settings and caches
			op()
		}
		before, t0 := commandsRun(t, rdb), trips.Load()
		for range runs {
			op()
		}
		after, t1 := commandsRun(t, rdb), trips.Load()
		got := cost{
			RoundTrips: float64(t1-t0-1) / runs, // less the INFO that read before
			Commands:   float64(after-before) / runs,
			Allocs:     testing.AllocsPerRun(runs, op),
		}
		t.Logf("%s: %.2f round trips, %.2f commands, %.0f allocations a request", name, got.RoundTrips, got.Commands, got.Allocs)
		if got.RoundTrips > want.RoundTrips+countSlack || got.Commands > want.Commands+countSlack || got.Allocs > want.Allocs*allocSlack {
			t.Errorf("%s costs more than recorded: %+v, recorded %+v", name, got, want)
		}
	}
}

// commandsRun is the number of commands the server has run, less INFO's own.
func commandsRun(t *testing.T, rdb *redis.Client) int64 {
	t.Helper()
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, line := range strings.Split(info, "\n") {
		if !strings.HasPrefix(line, "cmdstat_") || strings.HasPrefix(line, "cmdstat_info:") {
			continue
		}
		var calls int64
		if _, after, ok := strings.Cut(line, "calls="); ok {
			fmt.Sscanf(after, "%d", &calls)
		}
		total += calls
	}
	return total
}

// field is a string member of a JSON answer, found by its name.
func field(body, name string) string {
	_, after, _ := strings.Cut(body, `"`+name+`":"`)
	v, _, _ := strings.Cut(after, `"`)
	return v
}

// tripCounter counts the round trips a client makes: each command or pipeline sent.
type tripCounter struct{ n *atomic.Int64 }

func (c tripCounter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c tripCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { c.n.Add(1); return next(ctx, cmd) }
}
func (c tripCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { c.n.Add(1); return next(ctx, cmds) }
}
