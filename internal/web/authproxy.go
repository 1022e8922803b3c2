package web

import (
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/zpulse/zpulse/internal/domain"
)

// AuthProxy is sign-in by an authenticating proxy in front of zpulse (oauth2-proxy,
// Pomerium, Cloudflare Access), as Grafana's auth proxy: the proxy puts the person's name
// (an e-mail) in Header and, optionally, their groups in GroupsHeader (comma-separated).
// zpulse believes them only from a connection whose peer is in the trusted proxies'
// ranges (--trusted-proxies); from any other address the headers are ignored.
type AuthProxy struct {
	Header       string // "X-Forwarded-Email"; "" is off
	GroupsHeader string // "X-Forwarded-Groups"; "" is none
	// Admins and Operators name who gets those roles: a person (their name as Header says
	// it) or a group. Others get Default (RoleViewer, or RoleNone: read as anonymous).
	Admins, Operators []string
	Default           domain.Role
}

// RoleOf is the role of a person with groups.
func (p AuthProxy) RoleOf(name string, groups []string) domain.Role {
	in := func(list []string) bool {
		for _, g := range list {
			if strings.EqualFold(g, name) || slices.Contains(groups, g) {
				return true
			}
		}
		return false
	}
	switch {
	case in(p.Admins):
		return domain.RoleAdmin
	case in(p.Operators):
		return domain.RoleOperator
	}
	return p.Default
}

// maxProxyName bounds the name a proxy sends: an e-mail address is at most 254 bytes.
const maxProxyName = 254

// proxyIdentity is who the authenticating proxy says sent r; ok is false when the proxy
// sign-in is off, the connection does not come from a trusted proxy, or the header is empty
// or malformed (not printable, too long).
func (s *server) proxyIdentity(r *http.Request) (domain.Actor, bool) {
	p := s.AuthProxy
	if p.Header == "" || !s.peerTrusted(r) {
		return domain.Actor{}, false
	}
	name := strings.TrimSpace(r.Header.Get(p.Header))
	if name == "" || len(name) > maxProxyName || domain.ValidateMember("name", name) != nil {
		return domain.Actor{}, false
	}
	var groups []string
	if p.GroupsHeader != "" {
		for g := range strings.SplitSeq(r.Header.Get(p.GroupsHeader), ",") {
			if g = strings.TrimSpace(g); g != "" {
				groups = append(groups, g)
			}
		}
	}
	return domain.Actor{Name: name, Role: p.RoleOf(name, groups)}, true
}

// peerTrusted says whether the connection's peer (not any forwarded address) is one of the
// trusted proxies (--trusted-proxies).
func (s *server) peerTrusted(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	for _, p := range s.proxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// protected says whether changes need a credential: an admin token, an authenticating
// proxy or single sign-on is configured. Otherwise access is open (to loopback unless
// --open-access).
func (s *server) protected() bool {
	return s.AdminToken != "" || s.AuthProxy.Header != "" || s.OIDC != nil
}
