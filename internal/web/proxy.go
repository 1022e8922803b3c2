package web

import (
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// DefaultTrustedProxies are the addresses trusted as proxies unless told otherwise: loopback,
// where a TLS-terminating proxy on the same machine connects from.
const DefaultTrustedProxies = "127.0.0.0/8,::1/128"

// ParseTrustedProxies reads a comma-separated list of CIDR ranges (a bare address is a range
// of one), the --trusted-proxies flag.
func ParseTrustedProxies(list string) ([]*net.IPNet, error) {
	var ranges []*net.IPNet
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if ip := net.ParseIP(item); ip != nil {
			bits := 8 * len(ip.To16())
			if ip.To4() != nil {
				ip, bits = ip.To4(), 32
			}
			ranges = append(ranges, &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)})
			continue
		}
		_, r, err := net.ParseCIDR(item)
		if err != nil {
			return nil, fmt.Errorf("trusted proxies: %q is not an address or a CIDR range such as 10.0.0.0/8 or ::1/128", item)
		}
		ranges = append(ranges, r)
	}
	if len(ranges) == 0 {
		return nil, fmt.Errorf("trusted proxies: name at least one address or CIDR range, e.g. %s", DefaultTrustedProxies)
	}
	return ranges, nil
}

// ipExtractor is where a request's client address (c.RealIP, the key of every per-address
// limit and of loopback-only open access) comes from. Without --trust-proxy it is the
// connection's peer, and X-Forwarded-For is ignored: any client could set it to escape its
// limits. With it, echo reads X-Forwarded-For from right to left and takes the first address
// outside the trusted proxies' ranges (and only when the peer itself is in them), so entries
// a client wrote itself, on the left, are never taken: the client is the address the
// outermost trusted proxy saw.
func ipExtractor(trustProxy bool, proxies []*net.IPNet) echo.IPExtractor {
	if !trustProxy {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, r := range proxies {
		opts = append(opts, echo.TrustIPRange(r))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// fromTrustedProxy says whether the request's connection comes from a trusted proxy, whose
// forwarded headers count (--trust-proxy, from an address in --trusted-proxies).
func (s *server) fromTrustedProxy(r *http.Request) bool {
	if !s.TrustProxy {
		return false
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	for _, p := range s.proxies {
		if ip != nil && p.Contains(ip) {
			return true
		}
	}
	return false
}

// fromLoopback says whether the client is on this machine: its address (c.RealIP, through
// the trusted proxies) is loopback, and no proxy zpulse does not believe forwarded the
// request (such a proxy on this machine would make every client look local).
func (s *server) fromLoopback(c echo.Context) bool {
	h := c.Request().Header
	if h.Get("Forwarded") != "" || h.Get(echo.HeaderXRealIP) != "" || h.Get(echo.HeaderXForwardedFor) != "" {
		if !s.fromTrustedProxy(c.Request()) || h.Get(echo.HeaderXForwardedFor) == "" {
			return false
		}
	}
	ip := net.ParseIP(c.RealIP())
	return ip != nil && ip.IsLoopback()
}

// overHTTPS says whether the browser reached zpulse over HTTPS: zpulse serves TLS itself or a
// trusted proxy says so in X-Forwarded-Proto.
func (s *server) overHTTPS(r *http.Request) bool {
	return r.TLS != nil || (s.fromTrustedProxy(r) && strings.EqualFold(firstForwarded(r, echo.HeaderXForwardedProto), "https"))
}

// forwardedHost is the host the browser asked a trusted proxy for (X-Forwarded-Host); ""
// otherwise.
func (s *server) forwardedHost(r *http.Request) string {
	if !s.fromTrustedProxy(r) {
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
