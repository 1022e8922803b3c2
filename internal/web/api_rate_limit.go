package web

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
)

// apiRateLimit limits zpulse's own JSON API with the policy named by --api-rate-limit, one
// quota per client: the API token it sends (as a hash: a secret never becomes a Redis key),
// or else its IP address. Every answer carries the client's quota in the conventional
// X-RateLimit-* headers and the IETF draft's (draft-ietf-httpapi-ratelimit-headers)
// RateLimit-Policy and RateLimit; a request over the limit gets 429 rate_limited with
// Retry-After. When the policy does not exist yet, or Redis cannot answer, requests pass:
// the limiter must not lock operators out of the API that creates the policy, and without
// Redis the call itself answers 503.
type apiRateLimit struct {
	policy   string
	limiters domain.LimiterService
	log      func(msg string, args ...any)
	missing  atomic.Bool // the policy was missing at the last check (logged once per change)
}

func (s *server) rateLimitAPI() echo.MiddlewareFunc {
	if s.APIRateLimit == "" {
		return func(next echo.HandlerFunc) echo.HandlerFunc { return next }
	}
	rl := &apiRateLimit{policy: s.APIRateLimit, limiters: s.Limiters, log: s.Log.Warn}
	return rl.middleware
}

func (rl *apiRateLimit) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		res, err := rl.limiters.Allow(c.Request().Context(), rl.policy, apiClient(c))
		switch domain.ErrorCode(err) {
		case "":
			if rl.missing.Swap(false) {
				rl.log("the API rate limit policy exists now: the API is limited", "policy", rl.policy)
			}
		case domain.ENOTFOUND:
			if !rl.missing.Swap(true) {
				rl.log("the API rate limit policy does not exist: the API is not limited until it is created", "policy", rl.policy)
			}
			return next(c)
		default:
			return next(c) // Redis down: the call answers 503 itself
		}
		p := res.Policy
		setRateLimitHeaders(c.Response().Header(), p, res)
		if !res.Allowed {
			retry := seconds(res.RetryAfterMs)
			c.Response().Header().Set(echo.HeaderRetryAfter, strconv.FormatInt(max(retry, 1), 10))
			return domain.Errorf(domain.ERATELIMITED, "too many requests: the API allows %d per %s per client (policy %q); retry in %d s",
				p.Quota(), windowText(p.QuotaWindowMs()), p.Name, max(retry, 1))
		}
		return next(c)
	}
}

// setRateLimitHeaders writes a client's quota: X-RateLimit-Limit/Remaining/Reset (Reset in
// seconds from now, as the draft's t), RateLimit-Policy: "<policy>";q=<quota>;w=<seconds>
// and RateLimit: "<policy>";r=<remaining>;t=<seconds until the whole quota is back>.
func setRateLimitHeaders(h http.Header, p domain.LimitPolicy, res domain.LimitResult) {
	reset := seconds(res.ResetMs)
	h.Set("X-RateLimit-Limit", strconv.FormatInt(res.Limit, 10))
	h.Set("X-RateLimit-Remaining", strconv.FormatInt(res.Remaining, 10))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
	name := strconv.Quote(p.Name) // names are [A-Za-z0-9:._-]: a valid sf-string as quoted
	h.Set("RateLimit-Policy", fmt.Sprintf("%s;q=%d;w=%d", name, res.Limit, max(seconds(p.QuotaWindowMs()), 1)))
	h.Set("RateLimit", fmt.Sprintf("%s;r=%d;t=%d", name, res.Remaining, reset))
}

// apiClient names the caller for the API's limit: its bearer token's hash, or its address
// (c.RealIP: the connection's, or with --trust-proxy the forwarded one).
func apiClient(c echo.Context) string {
	if token, ok := bearerToken(c.Request()); ok && token != "" {
		sum := sha256.Sum256([]byte(token))
		return "token:" + hex.EncodeToString(sum[:8])
	}
	return "ip:" + c.RealIP()
}

// seconds rounds milliseconds up to whole seconds.
func seconds(ms int64) int64 { return (ms + 999) / 1000 }

// windowText says a window as people do: "10 s", "1 min", "250 ms".
func windowText(ms int64) string {
	switch {
	case ms%60_000 == 0 && ms >= 60_000:
		return strconv.FormatInt(ms/60_000, 10) + " min"
	case ms%1000 == 0:
		return strconv.FormatInt(ms/1000, 10) + " s"
	default:
		return strconv.FormatInt(ms, 10) + " ms"
	}
}
