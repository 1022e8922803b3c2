package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/redistest"
)

// Every API call and every page on a 3-master Redis Cluster, through the real HTTP server, for
// names whose keys lie on each of the three masters: boards with periods and tie-break, queues
// with leases and the reaper, the four limiter algorithms with saved policies, locks with the
// watchdog, forms, the live fragments, and locks and limiter clients that another service
// wrote directly on each master, all seen in one call. One server, one Cluster, one test.
func TestEveryAPICallAndPageOnTheCluster(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.ClusterClient(t)
	clock := domain.NewManualClock(testNow) // leases end and the watchdog falls due on demand
	w := newTestWiring(t, rdb, "", wiringOptions{clock: clock})
	s := serveWiring(t, rdb, w)
	k := redisrepo.DefaultKeys
	spread := onEveryMaster(t, rdb)

	// expect fails the subtest unless the call answered want and its body holds every part.
	expect := func(t *testing.T, what string, status int, body string, want int, parts ...string) {
		t.Helper()
		if status != want {
			t.Fatalf("%s: %d %.500s; want %d", what, status, body, want)
		}
		for _, p := range parts {
			if !strings.Contains(body, p) {
				t.Fatalf("%s: %.800s; lacks %s", what, body, p)
			}
		}
	}
	call := func(t *testing.T, method, path, body string, want int, parts ...string) string {
		t.Helper()
		ct := ""
		if body != "" {
			ct = "application/json"
		}
		status, b, _ := s.do(t, method, path, ct, body)
		expect(t, method+" "+path, status, b, want, parts...)
		return b
	}
	page := func(t *testing.T, path string, parts ...string) {
		t.Helper()
		status, b := s.get(t, path)
		expect(t, "GET "+path, status, b, http.StatusOK, append([]string{"<html"}, parts...)...)
	}
	form := func(t *testing.T, from, path string, values url.Values, want int) string {
		t.Helper()
		status, b, _ := s.postForm(t, from, path, values, "HX-Request", "true")
		expect(t, "form "+path, status, b, want)
		return b
	}

	boards := spread("board", k.Leaderboard)
	queues := spread("queue", k.Queue)
	locks := spread("lock", k.Lock)
	clients := spread("client", func(c string) string {
		return k.LimiterState(domain.LimitPolicy{Name: "x", Algorithm: domain.FixedWindow}, c)
	})
	var policies []string // one per algorithm, their own keys on different masters
	for i, name := range spread("policy", k.LimiterPolicy) {
		policies = append(policies, name)
		if i == 0 {
			policies = append(policies, name+"-b")
		}
	}

	t.Run("boards", func(t *testing.T) {
		for _, b := range boards {
			api := "/api/v1/boards/" + b
			call(t, http.MethodPut, api, `{"tie_break":"first_reached","periods":["daily","weekly","monthly"],"retention_days":30}`,
				http.StatusOK, `"tie_break":"first_reached"`, `"periods":["daily","weekly","monthly"]`)
			call(t, http.MethodGet, api, "", http.StatusOK, `"retention_days":30`)
			for i, p := range []string{"early", "late", "third", "fourth", "fifth"} {
				clock.Advance(time.Second) // each score reached in its own second, the tie-break's unit
				points := 10
				if i > 1 {
					points = 5 - i
				}
				call(t, http.MethodPost, api+"/scores", fmt.Sprintf(`{"player":%q,"points":%d}`, p, points), http.StatusOK)
			}
			// A tie goes to whoever reached the score first, on every period board too.
			for _, period := range []string{"", "&period=daily", "&period=weekly", "&period=monthly"} {
				call(t, http.MethodGet, api+"/top?n=2"+period, "", http.StatusOK,
					`"entries":[{"rank":1,"player":"early","score":10},{"rank":2,"player":"late","score":10}]`)
			}
			next := struct {
				Cursor *string `json:"next_cursor"`
			}{}
			json.Unmarshal([]byte(call(t, http.MethodGet, api+"/entries?limit=2", "", http.StatusOK, `"player":"early"`)), &next)
			if next.Cursor == nil {
				t.Fatal("the first page of entries has no next cursor")
			}
			call(t, http.MethodGet, api+"/entries?limit=2&cursor="+url.QueryEscape(*next.Cursor), "", http.StatusOK, `"player":"third"`)
			call(t, http.MethodGet, api+"/players/late/around?n=1&period=weekly", "", http.StatusOK, `"player":"early"`, `"player":"third"`)
			call(t, http.MethodGet, api+"/players/late", "", http.StatusOK, `{"rank":2,"player":"late","score":10}`)
			call(t, http.MethodPut, api+"/players/setter", `{"score":100}`, http.StatusOK, `{"rank":1,"player":"setter","score":100}`)
			call(t, http.MethodDelete, api+"/players/setter", "", http.StatusNoContent)
			call(t, http.MethodPost, api+"/trim", `{"keep":3}`, http.StatusOK, `{"removed":2}`)
			form(t, "/boards/"+b, "/boards/"+b+"/points", url.Values{"player": {"by-form"}, "points": {"7"}}, http.StatusOK)
			page(t, "/boards/"+b, `data-player="by-form"`)
			page(t, "/boards/"+b+"?period=weekly", `data-player="early"`)
			page(t, "/boards/"+b+"/entries", `data-player="late"`)
		}
		body := call(t, http.MethodGet, "/api/v1/boards", "", http.StatusOK)
		page(t, "/boards")
		for _, b := range boards {
			if !strings.Contains(body, `"board":"`+b+`"`) {
				t.Errorf("GET /api/v1/boards lacks %s: %s", b, body)
			}
		}
	})

	t.Run("queues", func(t *testing.T) {
		for _, q := range queues {
			api := "/api/v1/queues/" + q
			call(t, http.MethodPut, api, `{"kind":"priority","max_attempts":2}`, http.StatusOK, `"max_attempts":2`)
			for i, id := range []string{"a", "b", "c"} {
				call(t, http.MethodPost, api+"/jobs", fmt.Sprintf(`{"id":%q,"priority":%d,"payload":{"n":%d}}`, id, i, i), http.StatusCreated)
			}
			call(t, http.MethodGet, api, "", http.StatusOK, `"total":3`)
			// a: leased, extended, given back with its error, leased again and acked.
			a := s.leasedPoll(t, q)
			call(t, http.MethodPost, api+"/jobs/a/extend", `{"token":"`+a.Token+`","lease_ms":60000}`, http.StatusOK, `"lease_deadline"`)
			call(t, http.MethodPost, api+"/jobs/a/nack", `{"token":"`+a.Token+`","error":"smtp: 451"}`, http.StatusOK, `"state":"waiting"`)
			if a = s.leasedPoll(t, q); a.ID != "a" || a.Attempt != 2 {
				t.Fatalf("second delivery %+v; want a, attempt 2", a)
			}
			call(t, http.MethodPost, api+"/jobs/a/ack", `{"token":"`+a.Token+`"}`, http.StatusNoContent)
			if b := s.leasedPoll(t, q); b.ID != "b" {
				t.Fatalf("next delivery %+v; want b", b)
			}
		}
		// The reaper: b's leases end on every queue; the first reap gives b back, the second
		// (its last attempt over) moves it to the dead jobs.
		clock.Advance(31 * time.Second)
		if returned, died, err := s.queues.Reap(ctx, 1); err != nil || returned != int64(len(queues)) || died != 0 {
			t.Fatalf("first reap: %d returned, %d died, %v; want %d returned", returned, died, err, len(queues))
		}
		for _, q := range queues {
			if b := s.leasedPoll(t, q); b.ID != "b" || b.Attempt != 2 {
				t.Fatalf("redelivery %+v; want b, attempt 2", b)
			}
		}
		clock.Advance(31 * time.Second)
		if returned, died, err := s.queues.Reap(ctx, 1); err != nil || returned != 0 || died != int64(len(queues)) {
			t.Fatalf("second reap: %d returned, %d died, %v; want %d died", returned, died, err, len(queues))
		}
		for _, q := range queues {
			api := "/api/v1/queues/" + q
			call(t, http.MethodGet, api, "", http.StatusOK, `"dead":1`)
			call(t, http.MethodPost, api+"/dead/b/requeue", "", http.StatusNoContent)
			call(t, http.MethodDelete, api+"/jobs/b", "", http.StatusNoContent)
			form(t, "/queues/"+q, "/queues/"+q+"/enqueue", url.Values{"id": {"by-form"}, "priority": {"4"}}, http.StatusOK)
			page(t, "/queues/"+q, `data-job="c"`, `data-job="by-form"`)
		}
		body := call(t, http.MethodGet, "/api/v1/queues", "", http.StatusOK)
		page(t, "/queues")
		for _, q := range queues {
			if !strings.Contains(body, `"queue":"`+q+`"`) {
				t.Errorf("GET /api/v1/queues lacks %s: %s", q, body)
			}
		}
	})

	t.Run("limiters", func(t *testing.T) {
		bodies := []string{
			`{"algorithm":"sliding_log","limit":2,"window_ms":60000}`,
			`{"algorithm":"fixed_window","limit":2,"window_ms":60000}`,
			`{"algorithm":"sliding_counter","limit":2,"window_ms":60000}`,
			`{"algorithm":"token_bucket","rate_per_s":0.01,"burst":2}`,
		}
		for i, name := range policies {
			api := "/api/v1/limiters/" + name
			call(t, http.MethodPut, api, bodies[i], http.StatusOK, `"name":"`+name+`"`)
			call(t, http.MethodGet, api, "", http.StatusOK, `"algorithm":`)
			for _, c := range clients {
				for n := range 3 { // the limit is 2: the third is refused
					call(t, http.MethodPost, api+"/check", `{"client":"`+c+`"}`, http.StatusOK, fmt.Sprintf(`"allowed":%t`, n < 2))
				}
				call(t, http.MethodGet, api+"/clients/"+c, "", http.StatusOK, `"allowed":false`, `"remaining":0`)
			}
		}
		call(t, http.MethodPost, "/api/v1/limiters/default/check", `{"client":"`+clients[0]+`"}`, http.StatusOK, `"allowed":true`)
		body := call(t, http.MethodGet, "/api/v1/limiters", "", http.StatusOK, `"name":"default"`)
		for _, name := range policies {
			if !strings.Contains(body, `"name":"`+name+`"`) {
				t.Errorf("GET /api/v1/limiters lacks %s: %s", name, body)
			}
		}
		// A policy saved and tried through the forms.
		form(t, "/limiters/by-form", "/limiters/by-form/policy", url.Values{"algorithm": {"fixed_window"}, "limit": {"3"}, "window": {"1m"}, "new": {"1"}}, http.StatusOK)
		form(t, "/limiters/by-form", "/limiters/by-form/try", url.Values{"client": {clients[1]}, "n": {"4"}}, http.StatusOK)
		if err := w.svc.Limiters.Flush(ctx); err != nil { // the clients seen, as its cadence would
			t.Fatal(err)
		}
		for _, name := range append(policies, "by-form") {
			var parts []string
			for _, c := range clients {
				if name != "by-form" || c == clients[1] {
					parts = append(parts, `data-client="`+c+`"`)
				}
			}
			page(t, "/limiters/"+name, parts...)
		}
		page(t, "/limiters", `data-limiter="by-form"`)
	})

	t.Run("locks", func(t *testing.T) {
		tokens := map[string]string{}
		for _, l := range locks {
			api := "/api/v1/locks/" + l
			b := call(t, http.MethodPost, api+"/acquire", `{"ttl_ms":30000,"watchdog":true}`, http.StatusOK, `"watchdog":true`)
			var lease leaseResponse
			json.Unmarshal([]byte(b), &lease)
			tokens[l] = lease.Token
			call(t, http.MethodPost, api+"/acquire", `{"ttl_ms":30000}`, http.StatusConflict)
			call(t, http.MethodPost, api+"/extend", `{"token":"`+lease.Token+`","ttl_ms":40000}`, http.StatusOK, `"ttl_ms":40000`)
			call(t, http.MethodGet, api, "", http.StatusOK, `"token":"`+lease.Token+`"`)
		}
		// The watchdog renews every lock it keeps, whichever master holds it, in one round.
		clock.Advance(15 * time.Second) // past a third of the lease, well within it
		if renewed, lost := w.svc.Locks.Watchdog().RenewDue(ctx); renewed != len(locks) || lost != 0 {
			t.Errorf("the watchdog renewed %d and lost %d of %d locks", renewed, lost, len(locks))
		}
		body := call(t, http.MethodGet, "/api/v1/locks", "", http.StatusOK)
		for _, l := range locks {
			if !strings.Contains(body, `"lock":"`+l+`"`) {
				t.Errorf("GET /api/v1/locks lacks %s: %s", l, body)
			}
		}
		page(t, "/locks", `data-lock="`+locks[0]+`"`)
		page(t, "/locks/"+locks[1]+"/force-release", `value="`+tokens[locks[1]]+`"`)
		call(t, http.MethodPost, "/api/v1/locks/"+locks[0]+"/release", `{"token":"`+tokens[locks[0]]+`"}`, http.StatusNoContent)
		call(t, http.MethodPost, "/api/v1/locks/"+locks[1]+"/force-release", `{"token":"`+tokens[locks[1]]+`"}`, http.StatusNoContent)
		status, b, _ := s.postForm(t, "/locks/"+locks[2]+"/force-release", "/locks/"+locks[2]+"/force-release", url.Values{"token": {tokens[locks[2]]}})
		expect(t, "force-release form", status, b, http.StatusSeeOther)
		b = form(t, "/locks", "/locks/acquire", url.Values{"lock": {"by-form"}, "ttl": {"30"}, "wait": {"0"}, "watchdog": {"on"}}, http.StatusOK)
		token := regexpFind(t, b, `name="token" type="text" value="([^"]+)"`)
		form(t, "/locks", "/locks/release", url.Values{"release_lock": {"by-form"}, "token": {token}}, http.StatusOK)
		if n := rdb.Exists(ctx, k.Lock("by-form")).Val(); n != 0 {
			t.Error("the lock taken and released through the forms is still held")
		}
		for _, l := range locks {
			if n := rdb.Exists(ctx, k.Lock(l)).Val(); n != 0 {
				t.Errorf("lock %s is still held", l)
			}
		}
	})

	t.Run("other services' locks and clients on every master", func(t *testing.T) {
		// Written straight to each master, as another service would, no name known to zpulse.
		var theirLocks, theirClients []string
		for _, node := range redistest.SharedCluster(t).Nodes {
			direct := redis.NewClient(&redis.Options{Addr: node.Addr})
			defer direct.Close()
			theirLocks = append(theirLocks, firstServed(t, direct, func(i int) string { return fmt.Sprintf("theirs-%d", i) },
				func(name string) error { return direct.Set(ctx, k.Lock(name), "uuid", time.Minute).Err() }))
			theirClients = append(theirClients, firstServed(t, direct, func(i int) string { return fmt.Sprintf("outside-%d", i) },
				func(c string) error {
					return direct.ZAdd(ctx, k.LimiterState(domain.LimitPolicy{Name: domain.DefaultLimiter, Algorithm: domain.SlidingLog}, c),
						redis.Z{Score: float64(clock.Now().UnixMilli()), Member: "u1"}).Err()
				}))
		}
		if err := w.svc.Discovery.Refresh(ctx); err != nil { // one sweep, as its cadence would
			t.Fatal(err)
		}
		body := call(t, http.MethodGet, "/api/v1/locks", "", http.StatusOK)
		for _, l := range theirLocks {
			if !strings.Contains(body, `"lock":"`+l+`"`) {
				t.Errorf("after one sweep, GET /api/v1/locks lacks %s, written on its master: %s", l, body)
			}
		}
		var parts []string
		for _, c := range theirClients {
			parts = append(parts, `data-client="`+c+`"`)
		}
		page(t, "/limiters/default", parts...)
	})

	t.Run("overview, operations and live fragments", func(t *testing.T) {
		page(t, "/", `data-queue="`+queues[0]+`"`)
		call(t, http.MethodGet, "/readyz", "", http.StatusOK)
		call(t, http.MethodGet, "/healthz", "", http.StatusOK)
		call(t, http.MethodGet, "/metrics", "", http.StatusOK)
		topics := []string{domain.TopicStatus, domain.TopicBoards, domain.TopicQueues, domain.TopicLimiters, domain.TopicLocks}
		for i := range boards {
			topics = append(topics, domain.BoardTopic(boards[i], domain.Weekly, domain.BoardTopN), domain.QueueTopic(queues[i]))
		}
		for _, p := range policies {
			topics = append(topics, domain.LimiterTopic(p))
		}
		conn, _, err := dialWS(s, nil, topics...)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		waitTopics(t, w.deps.Hub, len(topics))
		w.watcher.Tick(ctx)
		w.watcher.Tick(ctx) // the first read of a limiter topic only learns its policy and clients
		var got strings.Builder
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		for !containsAll(got.String(), `data-player="early"`, `data-job="c"`, `data-client="`+clients[2]+`"`) {
			_, msg, err := conn.ReadMessage()
			if err != nil {
				t.Fatalf("live fragments so far lack a board row, a job or a limiter client: %v\n%.2000s", err, got.String())
			}
			got.Write(msg)
		}
	})

	t.Run("reset", func(t *testing.T) {
		for _, b := range boards {
			call(t, http.MethodDelete, "/api/v1/boards/"+b, "", http.StatusOK, `"deleted_keys":`)
		}
		for _, key := range keys(t, rdb) {
			if strings.HasPrefix(key, k.LeaderboardPrefix) {
				t.Errorf("after every reset %s is left", key)
			}
		}
	})
}

// onEveryMaster returns spread(prefix, key): one name per master of the Cluster, each the
// first "<prefix>-<n>" whose key (key(name)) that master serves, in the masters' order.
func onEveryMaster(t *testing.T, rdb *redis.ClusterClient) func(prefix string, key func(string) string) []string {
	t.Helper()
	ctx := context.Background()
	shards, err := rdb.ClusterShards(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	masterOf := func(key string) string {
		slot, err := rdb.ClusterKeySlot(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, sh := range shards {
			for _, r := range sh.Slots {
				if r.Start <= slot && slot <= r.End {
					for _, n := range sh.Nodes {
						if n.Role == "master" {
							return net.JoinHostPort(n.IP, strconv.FormatInt(n.Port, 10))
						}
					}
				}
			}
		}
		t.Fatalf("no master serves slot %d", slot)
		return ""
	}
	return func(prefix string, key func(string) string) []string {
		t.Helper()
		var names []string
		for _, addr := range redistest.SharedCluster(t).Addrs() {
			for i := 0; ; i++ {
				name := fmt.Sprintf("%s-%d", prefix, i)
				if masterOf(key(name)) == addr {
					names = append(names, name)
					break
				}
			}
		}
		return names
	}
}

// firstServed writes the first name(i) that the master behind direct serves (a master answers
// MOVED for the others) and returns it.
func firstServed(t *testing.T, direct *redis.Client, name func(i int) string, write func(name string) error) string {
	t.Helper()
	for i := 0; ; i++ {
		err := write(name(i))
		if err == nil {
			return name(i)
		}
		if !strings.HasPrefix(err.Error(), "MOVED") {
			t.Fatal(err)
		}
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
