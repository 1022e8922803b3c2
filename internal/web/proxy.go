package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// ipExtractor is where a request's client address (c.RealIP, the key of every per-address
// limit) comes from. Without --trust-proxy it is the connection's peer, and X-Forwarded-For
// is ignored: any client could set it to escape its limits. With it, echo reads
// X-Forwarded-For from right to left and takes the first address that is not a trusted proxy
// (loopback, link-local or private: where a TLS-terminating proxy runs), so entries a client
// wrote itself, on the left, are never taken.
func ipExtractor(trustProxy bool) echo.IPExtractor {
	if trustProxy {
		return echo.ExtractIPFromXFFHeader()
	}
	return echo.ExtractIPDirect()
}

// overHTTPS says whether the browser reached zpulse over HTTPS: zpulse serves TLS itself or,
// with --trust-proxy, the proxy says so in X-Forwarded-Proto.
func (s *server) overHTTPS(r *http.Request) bool {
	return r.TLS != nil || (s.TrustProxy && strings.EqualFold(firstForwarded(r, echo.HeaderXForwardedProto), "https"))
}

// forwardedHost is the host the browser asked the proxy for (X-Forwarded-Host), honoured
// only with --trust-proxy; "" otherwise.
func (s *server) forwardedHost(r *http.Request) string {
	if !s.TrustProxy {
		return ""
	}
	return firstForwarded(r, "X-Forwarded-Host")
}

// firstForwarded is the first value of a forwarded header: a chain of proxies appends, and
// the first was written by the proxy the browser reached.
func firstForwarded(r *http.Request, header string) string {
	v, _, _ := strings.Cut(r.Header.Get(header), ",")
	return strings.TrimSpace(v)
}
