package redisrepo

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Connection behaviour for a dashboard: fail fast and say so rather than hang, and never resend
// a command after a network error, because a resent ZINCRBY whose first answer was lost would
// Add the points twice. The watcher polls again on its next tick anyway. Deadlines of the
// caller's context bound every command (ContextTimeoutEnabled), so a page never waits on a
// Redis that stopped answering longer than its request allows.
const (
	maxRetries    = -1 // no resend
	dialerRetries = 1  // one dial attempt per connection
	dialTimeout   = 2 * time.Second
)

// Default ports when an address has none: Redis's for data nodes, Sentinel's for sentinels.
const (
	defaultRedisPort    = "6379"
	defaultSentinelPort = "26379"
)

// Connect opens a client for a REDIS_URL. The accepted forms:
//
//	redis://[user:pass@]host[:port][/db][?option=value…]          one server
//	rediss://…                                                    the same over TLS
//	redis://[user:pass@]host:port,host:port[,…][?option=value…]   Redis Cluster (seed nodes; db 0 only)
//	redis://[user:pass@]host:port[,host:port…][/db]?master_name=NAME[&sentinel_username=U][&sentinel_password=P]
//	                                                              Sentinel: the addresses are sentinels
//	host:port[,host:port…]                                        as redis://…
//
// The scheme, credentials, database and options are written once, for every address; a later
// address may repeat the scheme ("redis://a:7000,redis://b:7000") but nothing else. With
// master_name the user and password in the URL are those of the Redis master and replicas, and
// sentinel_username/sentinel_password those of the sentinels (go-redis's own ParseFailoverURL
// reads the user info as the sentinels' instead; a REDIS_URL names the data's credentials in
// every form). A missing port is 6379, or 26379 for a sentinel. The other options are
// go-redis's URL options (dial_timeout, read_timeout, pool_size…) except max_retries: zpulse
// never resends, and makes one dial attempt. The Sentinel client asks the sentinels for the
// master and follows a failover without a restart. The client is not checked here: call Ping
// to find out whether Redis answers.
func Connect(rawURL string) (redis.UniversalClient, error) {
	cfg, err := parseRedisURL(rawURL)
	if err != nil {
		return nil, err
	}
	switch {
	case cfg.MasterName != "":
		return redis.NewFailoverClient(cfg.Failover()), nil
	case len(cfg.Addrs) > 1:
		return redis.NewClusterClient(cfg.Cluster()), nil
	default:
		return redis.NewClient(cfg.Simple()), nil
	}
}

// parseRedisURL reads a REDIS_URL (forms in Connect) into options for one of the three clients:
// MasterName set is Sentinel, several Addrs a Cluster, otherwise one server.
func parseRedisURL(rawURL string) (*redis.UniversalOptions, error) {
	raw := strings.TrimSpace(rawURL)
	if raw == "" {
		return nil, errors.New("redis url: empty")
	}
	if !strings.Contains(raw, "://") {
		raw = "redis://" + raw
	}
	scheme, rest, _ := strings.Cut(raw, "://")
	if scheme != "redis" && scheme != "rediss" {
		return nil, fmt.Errorf("redis url: scheme %q: want redis:// or rediss://", scheme)
	}
	// A later address may repeat the scheme, as older REDIS_URLs did; another scheme is a mistake.
	rest = regexp.MustCompile(`,\s*`+scheme+`://`).ReplaceAllString(rest, ",")
	if strings.Contains(rest, "://") {
		return nil, fmt.Errorf("redis url: every address must use %s://", scheme)
	}

	// rest is [userinfo@]hosts[/db][?query]: the host list ends at the first '/' or '?'.
	authority, tail := rest, ""
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		authority, tail = rest[:i], rest[i:]
	}
	userinfo, hosts := "", authority
	if i := strings.LastIndex(authority, "@"); i >= 0 {
		userinfo, hosts = authority[:i+1], authority[i+1:]
	}
	if strings.Contains(userinfo, ",") {
		// Either credentials on a later address or a comma in a password: ambiguous, so refused.
		return nil, errors.New("redis url: credentials go once, before the first address (write a ',' in a password as %2C)")
	}
	path, rawQuery, _ := strings.Cut(tail, "?")
	query, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, fmt.Errorf("redis url: options: %w", err)
	}
	// The Sentinel options are zpulse's: go-redis's ParseURL rejects them as unknown.
	masterName, hasMaster := takeOption(query, "master_name")
	sentinelUser, hasSentinelUser := takeOption(query, "sentinel_username")
	sentinelPass, hasSentinelPass := takeOption(query, "sentinel_password")
	switch {
	case hasMaster && masterName == "":
		return nil, errors.New("redis url: master_name is empty")
	case !hasMaster && (hasSentinelUser || hasSentinelPass):
		return nil, errors.New("redis url: sentinel_username and sentinel_password need master_name")
	}
	if _, ok := query["max_retries"]; ok {
		return nil, errors.New("redis url: max_retries: zpulse never resends a command (a resent ZINCRBY would count twice)")
	}
	defaultPort := defaultRedisPort
	if hasMaster {
		defaultPort = defaultSentinelPort
	}

	var addrs []string
	for i, h := range strings.Split(hosts, ",") {
		addr, err := hostPort(strings.TrimSpace(h), defaultPort)
		if err != nil {
			return nil, fmt.Errorf("redis url: address %d: %w", i+1, err)
		}
		addrs = append(addrs, addr)
	}

	// go-redis reads the credentials, database, TLS and its options from a one-address URL.
	single := scheme + "://" + userinfo + addrs[0] + path
	if q := query.Encode(); q != "" {
		single += "?" + q
	}
	opt, err := redis.ParseURL(single)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	if len(addrs) > 1 && !hasMaster && opt.DB != 0 {
		return nil, fmt.Errorf("redis url: database %d: a Cluster has only database 0", opt.DB)
	}
	cfg := universalOptions(opt)
	cfg.Addrs = addrs
	if opt.DialTimeout > 0 {
		cfg.DialTimeout = opt.DialTimeout
	}
	if cfg.TLSConfig != nil && (len(addrs) > 1 || hasMaster) {
		// go-redis named the first host; every other node (and a master found through Sentinel)
		// must be verified under its own name, which TLS takes from the address when unset.
		cfg.TLSConfig.ServerName = ""
	}
	cfg.MasterName, cfg.SentinelUsername, cfg.SentinelPassword = masterName, sentinelUser, sentinelPass
	return cfg, nil
}

// takeOption removes a query option and reports whether it was given.
func takeOption(q url.Values, name string) (string, bool) {
	v, ok := q[name]
	if !ok {
		return "", false
	}
	delete(q, name)
	return v[len(v)-1], true
}

// hostPort checks one address of the list and gives it the default port when it has none.
func hostPort(h, defaultPort string) (string, error) {
	if h == "" {
		return "", errors.New("empty")
	}
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		// No port: a bare host name or a bracketed IPv6 literal.
		host, port = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), defaultPort
		if strings.ContainsAny(host, ":[]") {
			return "", fmt.Errorf("%q is not host:port", h)
		}
	}
	if host == "" {
		return "", fmt.Errorf("%q has no host", h)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("%q: port must be 1-65535", h)
	}
	return net.JoinHostPort(host, port), nil
}

// universalOptions carries everything go-redis read from the URL into the options of the three
// clients, with the connection behaviour of a dashboard (see the constants above).
func universalOptions(o *redis.Options) *redis.UniversalOptions {
	return &redis.UniversalOptions{
		ClientName:              o.ClientName,
		DB:                      o.DB,
		Protocol:                o.Protocol,
		Username:                o.Username,
		Password:                o.Password,
		MaxRetries:              maxRetries,
		MinRetryBackoff:         o.MinRetryBackoff,
		MaxRetryBackoff:         o.MaxRetryBackoff,
		DialTimeout:             dialTimeout,
		DialerRetries:           dialerRetries,
		DialerRetryTimeout:      o.DialerRetryTimeout,
		ReadTimeout:             o.ReadTimeout,
		WriteTimeout:            o.WriteTimeout,
		ContextTimeoutEnabled:   true,
		PipelineReadBufferSize:  o.PipelineReadBufferSize,
		PipelineWriteBufferSize: o.PipelineWriteBufferSize,
		PipelinePoolSize:        o.PipelinePoolSize,
		PoolFIFO:                o.PoolFIFO,
		PoolSize:                o.PoolSize,
		MaxConcurrentDials:      o.MaxConcurrentDials,
		PoolTimeout:             o.PoolTimeout,
		MinIdleConns:            o.MinIdleConns,
		MaxIdleConns:            o.MaxIdleConns,
		MaxActiveConns:          o.MaxActiveConns,
		ConnMaxIdleTime:         o.ConnMaxIdleTime,
		ConnMaxLifetime:         o.ConnMaxLifetime,
		ConnMaxLifetimeJitter:   o.ConnMaxLifetimeJitter,
		TLSConfig:               o.TLSConfig,
		DisableIdentity:         o.DisableIdentity,
		IdentitySuffix:          o.IdentitySuffix,
	}
}
