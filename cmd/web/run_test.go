package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
	"github.com/zpulse/zpulse/internal/web"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseConfig(t *testing.T) {
	cfg, err := parseConfig(nil, env(nil), io.Discard)
	if err != nil || cfg.Addr != ":8080" || cfg.PollInterval != 250*time.Millisecond || cfg.RedisURL != "" || !cfg.demoEnabled() {
		t.Errorf("defaults: %+v %v", cfg, err)
	}
	e := env(map[string]string{"ZPULSE_ADDR": ":9000", "REDIS_URL": "redis://r:6379", "ZPULSE_POLL_INTERVAL": "1s", "ZPULSE_ADMIN_TOKEN": "t", "ZPULSE_DEMO": "true"})
	cfg, err = parseConfig(nil, e, io.Discard)
	if err != nil || cfg.Addr != ":9000" || cfg.RedisURL != "redis://r:6379" || cfg.PollInterval != time.Second || cfg.AdminToken != "t" || !cfg.demoEnabled() {
		t.Errorf("from env: %+v %v", cfg, err)
	}
	cfg, err = parseConfig([]string{"--addr", ":9001", "--poll-interval", "100ms", "--demo=false", "--admin-token", "u"}, e, io.Discard)
	if err != nil || cfg.Addr != ":9001" || cfg.PollInterval != 100*time.Millisecond || cfg.demoEnabled() || cfg.AdminToken != "u" {
		t.Errorf("flags win: %+v %v", cfg, err)
	}
	if cfg, _ = parseConfig(nil, env(map[string]string{"REDIS_URL": "redis://r"}), io.Discard); cfg.demoEnabled() {
		t.Error("demo is on against a real Redis by default")
	}
	if cfg, _ = parseConfig([]string{"--demo"}, env(map[string]string{"REDIS_URL": "redis://r"}), io.Discard); !cfg.demoEnabled() {
		t.Error("--demo alone does not turn the demo on")
	}
	for _, bad := range [][]string{{"--poll-interval", "5ms"}, {"--poll-interval", "2m"}, {"--poll-interval", "fast"}, {"--demo=maybe"}, {"stray"}, {"--nope"}} {
		if _, err := parseConfig(bad, env(nil), io.Discard); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	if _, err := parseConfig(nil, env(map[string]string{"ZPULSE_DEMO": "sometimes"}), io.Discard); err == nil {
		t.Error("a bad ZPULSE_DEMO was accepted")
	}
}

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startRun runs the program as main does and waits until it answers /healthz.
func startRun(t *testing.T, args []string, environ map[string]string) (addr string, stop func() error, logs *syncBuffer) {
	t.Helper()
	addr = freeAddr(t)
	logs = &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"--addr", addr}, args...), env(environ), logs) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("server did not come up: %v\n%s", err, logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			return fmt.Errorf("run did not return within 10s of the signal")
		}
	}
	t.Cleanup(func() { stop() })
	return addr, stop, logs
}

// A signal closes live connections (1012, so browsers reconnect), drains requests and
// returns well within 10 s.
func TestRunShutsDownGracefully(t *testing.T) {
	t.Parallel()
	addr, stop, logs := startRun(t, []string{"--redis-url", "redis://" + redistest.Shared().Addr, "--demo=false"}, nil)
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+addr+"/ws?topic=status", http.Header{"Origin": {"http://" + addr}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	closed := make(chan error, 1)
	go func() {
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				closed <- err
				return
			}
		}
	}()
	start := time.Now()
	if err := stop(); err != nil {
		t.Fatalf("%v\n%s", err, logs)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("shutdown took %v", took)
	}
	if err := <-closed; !websocket.IsCloseError(err, websocket.CloseServiceRestart) {
		t.Errorf("websocket ended with %v, want close 1012", err)
	}
	if !strings.Contains(logs.String(), "stopped") {
		t.Errorf("log lacks the stop:\n%s", logs)
	}
}

// With no REDIS_URL, zpulse serves from an embedded in-memory Redis with demo data, and says so.
func TestRunEmbeddedWithDemoData(t *testing.T) {
	t.Parallel()
	addr, _, logs := startRun(t, nil, nil)
	// The demo seeds its boards in the background, and keeps adding points. A round comes
	// every 400 ms; the deadline is for a machine busy with the other packages' tests, where
	// the demo's singleton term can be cut short and taken again (3 s lease).
	var first string
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/api/v1/boards/demo:2048/top?n=3")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && strings.Contains(string(b), `"players":20,`) {
			if first == "" {
				first = string(b)
			} else if string(b) != first {
				break // the numbers change with no input
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo board did not fill and change within 30s: %s", b)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), "embedded in-memory Redis") {
		t.Errorf("the log does not say data lives in memory:\n%s", logs)
	}
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), `In-memory<span class="max-sm:sr-only"> Redis</span>`) {
		t.Error("the page does not say data lives in memory")
	}
}

func TestRunRefusesBadConfig(t *testing.T) {
	if err := run(context.Background(), []string{"--poll-interval", "1ns"}, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "poll interval") {
		t.Errorf("got %v", err)
	}
	if err := run(context.Background(), nil, env(map[string]string{"REDIS_URL": "mysql://x"}), io.Discard); err == nil || !strings.Contains(err.Error(), "redis url") {
		t.Errorf("got %v", err)
	}
}

func TestParseAPIRateLimitConfig(t *testing.T) {
	cfg, err := parseConfig([]string{"--api-rate-limit", "api"}, env(nil), io.Discard)
	if err != nil || cfg.APIRateLimit != "api" {
		t.Errorf("flag: %+v %v", cfg, err)
	}
	if cfg, _ = parseConfig(nil, env(map[string]string{"ZPULSE_API_RATE_LIMIT": "x"}), io.Discard); cfg.APIRateLimit != "x" {
		t.Error("env not read")
	}
	if cfg, _ = parseConfig(nil, env(nil), io.Discard); cfg.APIRateLimit != "" {
		t.Error("on by default")
	}
	if _, err := parseConfig([]string{"--api-rate-limit", "a b"}, env(nil), io.Discard); err == nil {
		t.Error("a bad policy name was accepted")
	}
}

// Two instances on one Redis: one records the history, the other stands by; either answers
// /metrics from Redis, with no page open, with what the other wrote.
func TestRunRecordsHistoryInOneInstance(t *testing.T) {
	t.Parallel()
	srv, err := redistest.Start() // a Redis of its own: no other test's instance takes the recorder
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	url := "redis://" + srv.Addr
	a, _, logsA := startRun(t, []string{"--redis-url", url, "--demo=false"}, nil)
	b, _, logsB := startRun(t, []string{"--redis-url", url, "--demo=false"}, nil)
	const running = `msg="running a singleton loop in this instance" loop=history-recorder`
	const standing = `msg="a singleton loop runs in another instance; standing by" loop=history-recorder`
	for deadline := time.Now().Add(10 * time.Second); ; {
		la, lb := logsA.String(), logsB.String()
		if strings.Contains(la, running) && strings.Contains(lb, standing) || strings.Contains(lb, running) && strings.Contains(la, standing) {
			if strings.Contains(la, running) && strings.Contains(lb, running) {
				t.Fatalf("both instances record:\n%s\n---\n%s", la, lb)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("want one recorder and one standing by within 10 s:\n%s\n---\n%s", la, lb)
		}
		time.Sleep(20 * time.Millisecond) // polling the logs, bounded by the deadline
	}

	resp, err := http.Post("http://"+a+"/api/v1/queues/run-metrics/jobs", "application/json", strings.NewReader(`{"id":"j1","priority":2}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// The other instance finds the new queue at its next discovery round (every 5 s).
	var body []byte
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(string(body), `queue="run-metrics"`); {
		if time.Now().After(deadline) {
			t.Fatalf("/metrics of the other instance never showed the queue:\n%s", body)
		}
		time.Sleep(50 * time.Millisecond) // polling the endpoint, bounded by the deadline
		resp, err := http.Get("http://" + b + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	for _, want := range []string{`zpulse_queue_jobs{queue="run-metrics",state="waiting"} 1`, `zpulse_locks_held `, `zpulse_http_requests_total{`, "\nzpulse_season_rollover_failures_total 0\n"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics of the other instance lacks %s", want)
		}
	}
}

// --trust-proxy and the websocket limits: off and the web package's defaults unless set,
// flags over environment, bad values refused.
func TestParseConfigTrustAndLimits(t *testing.T) {
	cfg, err := parseConfig(nil, env(nil), io.Discard)
	if err != nil || cfg.TrustProxy || cfg.WS != web.DefaultWSLimits {
		t.Errorf("defaults: %+v %v", cfg, err)
	}
	e := env(map[string]string{"ZPULSE_TRUST_PROXY": "true", "ZPULSE_WS_PER_ADDRESS": "5", "ZPULSE_WS_MAX_CONNS": "50",
		"ZPULSE_WS_MAX_TOPICS": "70", "ZPULSE_WS_TOPICS_PER_CONN": "8", "ZPULSE_WS_TOPICS_PER_ADDRESS": "20"})
	cfg, err = parseConfig(nil, e, io.Discard)
	if err != nil || !cfg.TrustProxy || cfg.WS != (web.WSLimits{PerAddress: 5, Total: 50, Topics: 70, TopicsPerConn: 8, TopicsPerAddress: 20}) {
		t.Errorf("from env: %+v %v", cfg, err)
	}
	cfg, err = parseConfig([]string{"--trust-proxy=false", "--ws-per-address", "6"}, e, io.Discard)
	if err != nil || cfg.TrustProxy || cfg.WS.PerAddress != 6 {
		t.Errorf("flags win: %+v %v", cfg, err)
	}
	if cfg, err = parseConfig([]string{"--trust-proxy"}, env(nil), io.Discard); err != nil || !cfg.TrustProxy {
		t.Errorf("--trust-proxy alone: %+v %v", cfg, err)
	}
	if cfg.OpenAccess || fmt.Sprint(cfg.TrustedProxies) != "[127.0.0.0/8 ::1/128]" {
		t.Errorf("defaults: open access %v, trusted proxies %v; want loopback only", cfg.OpenAccess, cfg.TrustedProxies)
	}
	e2 := env(map[string]string{"ZPULSE_OPEN_ACCESS": "true", "ZPULSE_TRUSTED_PROXIES": "10.0.0.0/8, 10.1.2.3"})
	if cfg, err = parseConfig(nil, e2, io.Discard); err != nil || !cfg.OpenAccess || fmt.Sprint(cfg.TrustedProxies) != "[10.0.0.0/8 10.1.2.3/32]" {
		t.Errorf("open access and trusted proxies from env: %v %v %v", cfg.OpenAccess, cfg.TrustedProxies, err)
	}
	if _, err := parseConfig([]string{"--trusted-proxies", "10.0.0.0/40"}, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "CIDR") {
		t.Errorf("a bad --trusted-proxies: %v", err)
	}
	if _, err := parseConfig(nil, env(map[string]string{"ZPULSE_TRUST_PROXY": "maybe"}), io.Discard); err == nil {
		t.Error("a bad ZPULSE_TRUST_PROXY was accepted")
	}
	for _, bad := range [][]string{{"--trust-proxy=maybe"}, {"--ws-per-address", "0"}, {"--ws-max-conns", "x"},
		{"--ws-max-topics", "-1"}, {"--ws-topics-per-conn", "33"}, {"--ws-topics-per-address", "0"}} {
		if _, err := parseConfig(bad, env(nil), io.Discard); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func TestParseWaitReplicasConfig(t *testing.T) {
	if cfg, err := parseConfig(nil, env(nil), io.Discard); err != nil || cfg.WaitReplicas != 0 {
		t.Errorf("default: %+v %v, want off", cfg, err)
	}
	if cfg, err := parseConfig([]string{"--redis-wait-replicas", "1"}, env(nil), io.Discard); err != nil || cfg.WaitReplicas != 1 {
		t.Errorf("flag: %+v %v", cfg, err)
	}
	if cfg, _ := parseConfig(nil, env(map[string]string{"ZPULSE_REDIS_WAIT_REPLICAS": "2"}), io.Discard); cfg.WaitReplicas != 2 {
		t.Error("env not read")
	}
	for _, bad := range []string{"-1", "17", "one"} {
		if _, err := parseConfig([]string{"--redis-wait-replicas", bad}, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "redis-wait-replicas") {
			t.Errorf("%q: %v, want an error naming the flag", bad, err)
		}
	}
}

// --live-min-gap: 50 ms unless set, from 0 (every nudge ticks at once) to the poll interval.
func TestParseLiveMinGap(t *testing.T) {
	if cfg, err := parseConfig(nil, env(nil), io.Discard); err != nil || cfg.MinGap != 50*time.Millisecond {
		t.Errorf("default: %v %v", cfg.MinGap, err)
	}
	if cfg, err := parseConfig(nil, env(map[string]string{"ZPULSE_LIVE_MIN_GAP": "0s"}), io.Discard); err != nil || cfg.MinGap != 0 {
		t.Errorf("from env: %v %v", cfg.MinGap, err)
	}
	for _, bad := range [][]string{{"--live-min-gap", "-1ms"}, {"--live-min-gap", "1s"}, {"--live-min-gap", "soon"}} {
		if _, err := parseConfig(bad, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "live-min-gap") {
			t.Errorf("%v: %v, want an error naming the flag", bad, err)
		}
	}
}

func TestParseMetricsMaxEntities(t *testing.T) {
	if cfg, err := parseConfig(nil, env(nil), io.Discard); err != nil || cfg.MetricsMax != 200 {
		t.Errorf("default: %d %v, want 200", cfg.MetricsMax, err)
	}
	if cfg, err := parseConfig(nil, env(map[string]string{"ZPULSE_METRICS_MAX_ENTITIES": "7"}), io.Discard); err != nil || cfg.MetricsMax != 7 {
		t.Errorf("from the environment: %d %v, want 7", cfg.MetricsMax, err)
	}
	for _, bad := range []string{"0", "10001", "many"} {
		if _, err := parseConfig([]string{"--metrics-max-entities", bad}, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "metrics-max-entities") {
			t.Errorf("%q: %v, want an error naming the flag", bad, err)
		}
	}
}

// The completed jobs kept: 1,000 a queue for a day without payloads by default; each flag
// and its environment variable read through one parser; out of range refused, naming the flag.
func TestParseCompletedConfig(t *testing.T) {
	if cfg, err := parseConfig(nil, env(nil), io.Discard); err != nil || cfg.Completed != domain.DefaultCompletedPolicy {
		t.Errorf("default: %+v %v, want %+v", cfg.Completed, err, domain.DefaultCompletedPolicy)
	}
	cfg, err := parseConfig([]string{"--completed-keep", "0", "--completed-max-age", "2h", "--keep-completed-payloads"}, env(nil), io.Discard)
	if err != nil || cfg.Completed != (domain.CompletedPolicy{Keep: 0, MaxAge: 2 * time.Hour, Payloads: true}) {
		t.Errorf("flags: %+v %v", cfg.Completed, err)
	}
	cfg, _ = parseConfig(nil, env(map[string]string{"ZPULSE_COMPLETED_KEEP": "50", "ZPULSE_KEEP_COMPLETED_PAYLOADS": "true"}), io.Discard)
	if cfg.Completed.Keep != 50 || !cfg.Completed.Payloads {
		t.Errorf("env not read: %+v", cfg.Completed)
	}
	for _, bad := range [][]string{{"--completed-keep", "-1"}, {"--completed-keep", "100001"}, {"--completed-max-age", "30s"}, {"--completed-max-age", "721h"}} {
		if _, err := parseConfig(bad, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), bad[0][2:]) {
			t.Errorf("%q: %v, want an error naming the flag", bad, err)
		}
	}
}

// --score-history: 10,000 events a board by default, 0 keeps none (-1 to redisrepo.Open),
// out of range refused naming the flag.
func TestParseScoreHistoryConfig(t *testing.T) {
	if cfg, err := parseConfig(nil, env(nil), io.Discard); err != nil || cfg.ScoreHistory != domain.DefaultScoreHistory || scoreHistoryOption(cfg.ScoreHistory) != domain.DefaultScoreHistory {
		t.Errorf("default: %d %v", cfg.ScoreHistory, err)
	}
	if cfg, err := parseConfig(nil, env(map[string]string{"ZPULSE_SCORE_HISTORY": "0"}), io.Discard); err != nil || scoreHistoryOption(cfg.ScoreHistory) != -1 {
		t.Errorf("0 from the environment: %d %v; want none", cfg.ScoreHistory, err)
	}
	for _, bad := range []string{"-1", "16777217", "many"} {
		if _, err := parseConfig([]string{"--score-history", bad}, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "score-history") {
			t.Errorf("%q: %v, want an error naming the flag", bad, err)
		}
	}
}
