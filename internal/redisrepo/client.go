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

// wrap turns the error of a read into a domain error: a server that refused, could not be
// reached or did not answer becomes EUNAVAILABLE (a read changes nothing, so that is the
// whole truth), and a context that ended passes through unchanged.
func wrap(err error) error { return classify(err, false) }

// wrapWrite is wrap for a write, whose outcome may be unknown: when the request may have
// reached Redis but its answer did not come back (a timeout or a connection cut after
// sending), Redis may have applied it, and saying "unavailable, nothing changed" would make a
// retry apply it twice. That is EUNKNOWN.
func wrapWrite(err error) error { return classify(err, true) }

// classify is the one classification of Redis errors behind wrap and wrapWrite.
func classify(err error, write bool) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return err // the caller went away; nobody reads the answer
	case errors.Is(err, context.DeadlineExceeded) && !write:
		return err
	case notSent(err):
		return &domain.Error{Code: domain.EUNAVAILABLE, Message: "Redis is unavailable: " + err.Error()}
	case maybeSent(err) && write:
		return &domain.Error{Code: domain.EUNKNOWN, Message: "Redis did not answer (" + err.Error() + "), so the change may or may not have been applied. " +
			"Look at the current state (reload the page, or read it through the API) before trying again."}
	case maybeSent(err):
		return &domain.Error{Code: domain.EUNAVAILABLE, Message: "Redis did not answer: " + err.Error()}
	default:
		return fmt.Errorf("redis: %w", err)
	}
}

// notSent reports errors that leave no doubt the command never ran: no connection could be
// had or made, or Redis refused it with an error reply saying it is not serving.
func notSent(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	return errors.Is(err, redis.ErrClosed) || errors.Is(err, redis.ErrPoolTimeout) || errors.Is(err, syscall.ECONNREFUSED) ||
		(errors.As(err, &op) && op.Op == "dial") || errors.As(err, &dns) ||
		redis.HasErrorPrefix(err, "LOADING") || redis.HasErrorPrefix(err, "CLUSTERDOWN") || redis.HasErrorPrefix(err, "MASTERDOWN") ||
		redis.HasErrorPrefix(err, "READONLY")
}

// maybeSent reports errors of a connection that failed while a command was on it: written
// (perhaps in part) and then no answer, so Redis may have run it. A context deadline is among
// them: it may have passed before or after the command went out.
func maybeSent(err error) bool {
	var nerr net.Error
	return errors.As(err, &nerr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, context.DeadlineExceeded)
}
