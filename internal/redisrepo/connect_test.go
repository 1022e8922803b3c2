package redisrepo

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Every documented REDIS_URL form reads into the client it names, with the dashboard's
// connection behaviour whatever the URL says.
func TestConnectParseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, url    string
		addrs        []string
		master       string
		user, pass   string
		sUser, sPass string
		db           int
		tls          bool
		readTimeout  time.Duration
	}{
		{name: "one server", url: "redis://localhost:6379/0", addrs: []string{"localhost:6379"}},
		{name: "default port and db", url: "redis://r/3", addrs: []string{"r:6379"}, db: 3},
		{name: "bare host:port", url: "10.0.0.1:7000", addrs: []string{"10.0.0.1:7000"}},
		{name: "credentials and tls", url: "rediss://user:secret@redis.internal:6380", addrs: []string{"redis.internal:6380"}, user: "user", pass: "secret", tls: true},
		{name: "go-redis option", url: "redis://r:1?read_timeout=5s", addrs: []string{"r:1"}, readTimeout: 5 * time.Second},
		{name: "ipv6", url: "redis://[::1]:7000", addrs: []string{"[::1]:7000"}},
		{name: "cluster bare", url: "10.0.0.1:7000,10.0.0.2:7000,10.0.0.3:7000", addrs: []string{"10.0.0.1:7000", "10.0.0.2:7000", "10.0.0.3:7000"}},
		{name: "cluster one url", url: "redis://:pw@a:7000,b:7001,c", addrs: []string{"a:7000", "b:7001", "c:6379"}, pass: "pw"},
		{name: "cluster repeated scheme", url: "redis://a:7000, redis://b:7001", addrs: []string{"a:7000", "b:7001"}},
		{name: "cluster tls", url: "rediss://a:7000,b:7000", addrs: []string{"a:7000", "b:7000"}, tls: true},
		{name: "sentinel pair", url: "redis://s1:26379,s2:26380?master_name=mymaster", addrs: []string{"s1:26379", "s2:26380"}, master: "mymaster"},
		{name: "sentinel one address default port", url: "redis://s1?master_name=m", addrs: []string{"s1:26379"}, master: "m"},
		{name: "sentinel credentials", url: "redis://app:dbpw@s1:26379,s2:26379/2?master_name=m&sentinel_password=spw&sentinel_username=sen", addrs: []string{"s1:26379", "s2:26379"}, master: "m", user: "app", pass: "dbpw", sUser: "sen", sPass: "spw", db: 2},
		{name: "sentinel escaped password", url: "redis://:p%40s%2Cs@s1:1?master_name=m&sentinel_password=a%26b", addrs: []string{"s1:1"}, master: "m", pass: "p@s,s", sPass: "a&b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := parseRedisURL(tc.url)
			if err != nil {
				t.Fatalf("parseRedisURL(%q): %v", tc.url, err)
			}
			if strings.Join(cfg.Addrs, " ") != strings.Join(tc.addrs, " ") || cfg.MasterName != tc.master {
				t.Errorf("addrs %v master %q, want %v %q", cfg.Addrs, cfg.MasterName, tc.addrs, tc.master)
			}
			if cfg.Username != tc.user || cfg.Password != tc.pass || cfg.SentinelUsername != tc.sUser || cfg.SentinelPassword != tc.sPass {
				t.Errorf("credentials %q:%q sentinel %q:%q, want %q:%q sentinel %q:%q",
					cfg.Username, cfg.Password, cfg.SentinelUsername, cfg.SentinelPassword, tc.user, tc.pass, tc.sUser, tc.sPass)
			}
			if cfg.DB != tc.db || (cfg.TLSConfig != nil) != tc.tls || cfg.ReadTimeout != tc.readTimeout {
				t.Errorf("db %d tls %v read timeout %v, want %d %v %v", cfg.DB, cfg.TLSConfig != nil, cfg.ReadTimeout, tc.db, tc.tls, tc.readTimeout)
			}
			if tc.tls && len(tc.addrs) > 1 && cfg.TLSConfig.ServerName != "" {
				t.Errorf("TLS server name %q for several nodes: each must be verified under its own name", cfg.TLSConfig.ServerName)
			}
			if cfg.MaxRetries != maxRetries || cfg.DialerRetries != dialerRetries || cfg.DialTimeout != dialTimeout || !cfg.ContextTimeoutEnabled {
				t.Errorf("connection behaviour: retries %d dial attempts %d dial timeout %v context timeouts %v",
					cfg.MaxRetries, cfg.DialerRetries, cfg.DialTimeout, cfg.ContextTimeoutEnabled)
			}
		})
	}
}

// Connect builds the client each form names.
func TestConnectClientKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url  string
		want string
	}{
		{"redis://127.0.0.1:1", "*redis.Client"},
		{"redis://127.0.0.1:1,127.0.0.1:2", "*redis.ClusterClient"},
		{"redis://127.0.0.1:1?master_name=m", "*redis.Client"}, // go-redis's failover client is a *redis.Client
		{"redis://127.0.0.1:1,127.0.0.1:2?master_name=m", "*redis.Client"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			rdb, err := Connect(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			defer rdb.Close()
			got := "?"
			switch rdb.(type) {
			case *redis.Client:
				got = "*redis.Client"
			case *redis.ClusterClient:
				got = "*redis.ClusterClient"
			}
			if got != tc.want {
				t.Errorf("Connect(%q) is %s, want %s", tc.url, got, tc.want)
			}
		})
	}
}

// Bad URLs fail at start with an error that says what is wrong, never a client that half works.
func TestConnectBadURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, url, want string }{
		{"empty", "  ", "empty"},
		{"other scheme", "mysql://x", `scheme "mysql"`},
		{"mixed schemes", "redis://a:1,rediss://b:2", "every address must use redis://"},
		{"empty address", "redis://a:1,,b:2", "address 2: empty"},
		{"trailing comma", "redis://a:1,", "address 2: empty"},
		{"bad port", "redis://a:99999", "port must be 1-65535"},
		{"port not a number", "redis://a:x,b:1", "address 1"},
		{"no host", "redis://:7000", "has no host"},
		{"empty master name", "redis://s:1?master_name=", "master_name is empty"},
		{"sentinel password without master", "redis://s:1?sentinel_password=x", "need master_name"},
		{"unknown option", "redis://a:1?colour=blue", "unexpected option: colour"},
		{"resend", "redis://a:1?max_retries=3", "never resends"},
		{"cluster database", "redis://a:1,b:2/3", "a Cluster has only database 0"},
		{"bad database", "redis://a:1/x", "invalid database number"},
		{"bad query", "redis://a:1?master_name=%zz", "options"},
		{"credentials on a later address", "redis://a:1,redis://u:p@b:2", "credentials go once"},
		{"credentials twice", "redis://u:p@a:1,v:q@b:2", "credentials go once"},
		{"comma in a password", "redis://:a,b@h:1", "%2C"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rdb, err := Connect(tc.url)
			if err == nil {
				rdb.Close()
				t.Fatalf("Connect(%q) succeeded", tc.url)
			}
			if !strings.HasPrefix(err.Error(), "redis url") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Connect(%q) = %q, want a \"redis url\" error about %q", tc.url, err, tc.want)
			}
		})
	}
}
