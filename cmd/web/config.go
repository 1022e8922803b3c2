package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/web"
)

// config is DESIGN.md's configuration table: every flag has an environment variable of the
// same meaning, and flags win.
type config struct {
	Addr         string
	RedisURL     string
	PollInterval time.Duration
	AdminToken   string
	Demo         optionalBool  // unset: on with the embedded Redis, off otherwise
	DemoEvery    time.Duration // how often the demo makes a round of traffic
	BigKey       int64         // members above which a board page warns of a big key
	APIRateLimit string        // limiter policy protecting the JSON API per client; "" is off
	TrustProxy   bool          // honour X-Forwarded-For/-Proto/-Host
	WS           web.WSLimits  // bounds on websocket viewers
	WaitReplicas int           // replicas an enqueue and a lock acquisition wait for; 0 is off
}

const (
	minPollInterval = 10 * time.Millisecond
	maxPollInterval = time.Minute
)

func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("zpulse", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.Addr, "addr", envOr(getenv, "ZPULSE_ADDR", ":8080"), "listen address (ZPULSE_ADDR)")
	fs.StringVar(&cfg.RedisURL, "redis-url", getenv("REDIS_URL"), "redis:// or rediss:// URL; comma-separated addresses for Cluster/Sentinel; none: an embedded in-memory Redis with demo data (REDIS_URL)")
	interval := fs.String("poll-interval", envOr(getenv, "ZPULSE_POLL_INTERVAL", "250ms"), "watcher tick, 10ms to 1m (ZPULSE_POLL_INTERVAL)")
	fs.StringVar(&cfg.AdminToken, "admin-token", getenv("ZPULSE_ADMIN_TOKEN"), "when set, every change needs it: Bearer token in the API, sign-in in the browser (ZPULSE_ADMIN_TOKEN)")
	if v := getenv("ZPULSE_DEMO"); v != "" {
		if err := cfg.Demo.Set(v); err != nil {
			return cfg, fmt.Errorf("ZPULSE_DEMO: %w", err)
		}
	}
	fs.Var(&cfg.Demo, "demo", "run the traffic simulator (true or false); default on with the embedded Redis (ZPULSE_DEMO)")
	demoEvery := fs.String("demo-every", envOr(getenv, "ZPULSE_DEMO_EVERY", "400ms"), "how often the demo makes a round of traffic, 50ms to 1m (ZPULSE_DEMO_EVERY)")
	bigKey := fs.String("big-key-members", envOr(getenv, "ZPULSE_BIG_KEY_MEMBERS", "1000000"), "members above which a board page warns of a big key, 1 or more (ZPULSE_BIG_KEY_MEMBERS)")
	waitReplicas := fs.String("redis-wait-replicas", envOr(getenv, "ZPULSE_REDIS_WAIT_REPLICAS", "0"), fmt.Sprintf("replicas an enqueue and a lock acquisition wait for (WAIT, up to 1 s), 0 to %d; 0: off (ZPULSE_REDIS_WAIT_REPLICAS)", redisrepo.MaxWaitReplicas))
	fs.StringVar(&cfg.APIRateLimit, "api-rate-limit", getenv("ZPULSE_API_RATE_LIMIT"), "limiter policy that limits the JSON API per client (API token or IP); none: off (ZPULSE_API_RATE_LIMIT)")
	if v := getenv("ZPULSE_TRUST_PROXY"); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return cfg, fmt.Errorf("ZPULSE_TRUST_PROXY must be true or false (got %q)", v)
		}
		cfg.TrustProxy = on
	}
	fs.BoolVar(&cfg.TrustProxy, "trust-proxy", cfg.TrustProxy, "zpulse is reached through a TLS-terminating proxy on a loopback or private address: honour its X-Forwarded-For (client address for limits), -Proto (Secure cookie) and -Host (websocket Origin check) (ZPULSE_TRUST_PROXY)")
	def := web.DefaultWSLimits
	wsLimits := []struct {
		name, env, usage string
		hi               int
		dst              *int
		def              int
	}{
		{"ws-per-address", "ZPULSE_WS_PER_ADDRESS", "live connections one client address may hold", 1_000_000, &cfg.WS.PerAddress, def.PerAddress},
		{"ws-max-conns", "ZPULSE_WS_MAX_CONNS", "live connections in all", 10_000_000, &cfg.WS.Total, def.Total},
		{"ws-max-topics", "ZPULSE_WS_MAX_TOPICS", "distinct live topics over all connections (each is polled every tick)", 1_000_000, &cfg.WS.Topics, def.Topics},
		{"ws-topics-per-conn", "ZPULSE_WS_TOPICS_PER_CONN", "topics one live connection may ask for, at most 32", 32, &cfg.WS.TopicsPerConn, def.TopicsPerConn},
	}
	wsValues := make([]*string, len(wsLimits))
	for i, l := range wsLimits {
		wsValues[i] = fs.String(l.name, envOr(getenv, l.env, strconv.Itoa(l.def)), fmt.Sprintf("%s, 1 to %d (%s)", l.usage, l.hi, l.env))
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q: every setting is a flag, see -help", fs.Args())
	}
	d, err := time.ParseDuration(*interval)
	if err != nil || d < minPollInterval || d > maxPollInterval {
		return cfg, fmt.Errorf("poll interval must be a duration from %v to %v, e.g. 250ms (got %q)", minPollInterval, maxPollInterval, *interval)
	}
	cfg.PollInterval = d
	if cfg.DemoEvery, err = time.ParseDuration(*demoEvery); err != nil || cfg.DemoEvery < 50*time.Millisecond || cfg.DemoEvery > time.Minute {
		return cfg, fmt.Errorf("demo-every must be a duration from 50ms to 1m, e.g. 400ms (got %q)", *demoEvery)
	}
	if cfg.BigKey, err = strconv.ParseInt(*bigKey, 10, 64); err != nil || cfg.BigKey < 1 {
		return cfg, fmt.Errorf("big-key-members must be a whole number of 1 or more (got %q)", *bigKey)
	}
	for i, l := range wsLimits {
		n, err := strconv.Atoi(*wsValues[i])
		if err != nil || n < 1 || n > l.hi {
			return cfg, fmt.Errorf("%s must be a whole number from 1 to %d (got %q)", l.name, l.hi, *wsValues[i])
		}
		*l.dst = n
	}
	if cfg.WaitReplicas, err = strconv.Atoi(*waitReplicas); err != nil || cfg.WaitReplicas < 0 || cfg.WaitReplicas > redisrepo.MaxWaitReplicas {
		return cfg, fmt.Errorf("redis-wait-replicas must be a whole number from 0 to %d (got %q)", redisrepo.MaxWaitReplicas, *waitReplicas)
	}
	if cfg.APIRateLimit != "" {
		if err := domain.ValidateLimiterName(cfg.APIRateLimit); err != nil {
			return cfg, fmt.Errorf("api rate limit: %s", domain.ErrorMessage(err))
		}
	}
	return cfg, nil
}

// demoEnabled says whether to run the simulator: as asked, or with the embedded Redis.
func (c config) demoEnabled() bool {
	if c.Demo.set {
		return c.Demo.on
	}
	return c.RedisURL == ""
}

// optionalBool is a boolean flag that remembers whether it was given at all.
type optionalBool struct{ set, on bool }

func (b *optionalBool) String() string   { return strconv.FormatBool(b.on) }
func (b *optionalBool) IsBoolFlag() bool { return true }
func (b *optionalBool) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("must be true or false (got %q)", s)
	}
	b.set, b.on = true, on
	return nil
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}
