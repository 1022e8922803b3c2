package redisrepo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// Connection behaviour for a dashboard: fail fast and say so rather than hang, and never resend
// a command after a network error, because a resent ZINCRBY whose first answer was lost would
// add the points twice. The watcher polls again on its next tick anyway.
const (
	maxRetries    = -1 // no resend
	dialerRetries = 1  // one dial attempt per connection
	dialTimeout   = 2 * time.Second
)

// Connect opens a client for a REDIS_URL. One redis:// or rediss:// URL is a single server.
// Several comma-separated addresses (each a URL or host:port; credentials, TLS and options
// are taken from the first) are a Cluster, or Sentinel when the first has
// ?master_name=NAME. The client is not checked here: call Ping to find out whether Redis answers.
func Connect(rawURL string) (redis.UniversalClient, error) {
	parts := strings.Split(rawURL, ",")
	if len(parts) == 1 {
		opt, err := redis.ParseURL(strings.TrimSpace(rawURL))
		if err != nil {
			return nil, fmt.Errorf("redis url: %w", err)
		}
		opt.MaxRetries, opt.DialerRetries, opt.DialTimeout = maxRetries, dialerRetries, dialTimeout
		return redis.NewClient(opt), nil
	}
	uopt := redis.UniversalOptions{MaxRetries: maxRetries, DialerRetries: dialerRetries, DialTimeout: dialTimeout}
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if !strings.Contains(p, "://") {
			p = "redis://" + p
		}
		opt, err := redis.ParseURL(p)
		if err != nil {
			return nil, fmt.Errorf("redis url %d of %d: %w", i+1, len(parts), err)
		}
		uopt.Addrs = append(uopt.Addrs, opt.Addr)
		if i == 0 {
			uopt.Username, uopt.Password, uopt.TLSConfig = opt.Username, opt.Password, opt.TLSConfig
			if u, err := url.Parse(p); err == nil {
				uopt.MasterName = u.Query().Get("master_name")
			}
		}
	}
	return redis.NewUniversalClient(&uopt), nil
}

// wrap turns go-redis errors into domain errors: a server that cannot be reached becomes
// EUNAVAILABLE, and a context that ended passes through unchanged.
func wrap(err error) error {
	var nerr net.Error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.As(err, &nerr), errors.Is(err, redis.ErrClosed), errors.Is(err, redis.ErrPoolTimeout),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		redis.HasErrorPrefix(err, "LOADING"), redis.HasErrorPrefix(err, "CLUSTERDOWN"), redis.HasErrorPrefix(err, "MASTERDOWN"):
		return &domain.Error{Code: domain.EUNAVAILABLE, Message: "Redis is unavailable: " + err.Error()}
	default:
		return fmt.Errorf("redis: %w", err)
	}
}
