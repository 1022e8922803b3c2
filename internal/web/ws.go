package web

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/panels"
)

// WSLimits bound what websocket viewers may hold, so anonymous clients cannot make the
// watcher poll without end. Zero fields take DefaultWSLimits' values.
type WSLimits struct {
	PerAddress    int // open connections per client address
	Total         int // open connections in all
	Topics        int // distinct topics over all connections (each is polled every tick)
	TopicsPerConn int // topics one connection may ask for (the hub allows at most 32)
	// TopicsPerAddress is the distinct topics one client address's connections may hold
	// together, so one address cannot fill Topics nor make the watcher read without bound.
	TopicsPerAddress int
}

// DefaultWSLimits suit a 10,000-viewer deployment: two tabs per viewer, one office or NAT of
// a few hundred people behind one address, and topics for every board, queue and limiter
// page people could open at once; one address holds at most a fortieth of the topics, so
// forty addresses are needed to fill them.
var DefaultWSLimits = WSLimits{PerAddress: 300, Total: 20_000, Topics: 10_000, TopicsPerConn: 32, TopicsPerAddress: 250}

func (l WSLimits) withDefaults() WSLimits {
	d := DefaultWSLimits
	if l.PerAddress > 0 {
		d.PerAddress = l.PerAddress
	}
	if l.Total > 0 {
		d.Total = l.Total
	}
	if l.Topics > 0 {
		d.Topics = l.Topics
	}
	if l.TopicsPerConn > 0 {
		d.TopicsPerConn = l.TopicsPerConn
	}
	if l.TopicsPerAddress > 0 {
		d.TopicsPerAddress = l.TopicsPerAddress
	}
	return d
}

// wsAdmission counts what open websockets hold, and admits a new one only within WSLimits.
// It counts beside the hub, not in it: a connection is counted from before its upgrade until
// the hub says it ended (Hub.Serve's ended), so the hub's fan-out never waits on it.
type wsAdmission struct {
	limits WSLimits

	mu         sync.Mutex
	total      int
	perAddr    map[string]int
	topics     map[string]int            // distinct topic -> connections subscribed to it
	addrTopics map[string]map[string]int // address -> its distinct topics -> its connections to each
}

func newWSAdmission(l WSLimits) *wsAdmission {
	return &wsAdmission{limits: l.withDefaults(), perAddr: map[string]int{}, topics: map[string]int{}, addrTopics: map[string]map[string]int{}}
}

// wsRefusal is why a websocket was refused: the status answered before the upgrade and a
// message that names the limit.
type wsRefusal struct {
	status int
	msg    string
}

// admit counts a connection of addr to topics, or says which limit refuses it. release
// uncounts it; call it once the connection has ended. Every topic must be valid
// (panels.Validate): one the watcher cannot read is refused before it takes a place.
func (a *wsAdmission) admit(addr string, topics []string) (release func(), refused *wsRefusal) {
	distinct := map[string]struct{}{}
	for _, t := range topics {
		if err := panels.Validate(t); err != nil {
			return nil, &wsRefusal{http.StatusBadRequest, err.Error()}
		}
		distinct[t] = struct{}{}
	}
	l := a.limits
	if len(distinct) > l.TopicsPerConn {
		return nil, &wsRefusal{http.StatusBadRequest, fmt.Sprintf("too many topics: one connection may ask for %d (ws-topics-per-conn)", l.TopicsPerConn)}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.perAddr[addr] >= l.PerAddress:
		return nil, &wsRefusal{http.StatusTooManyRequests, fmt.Sprintf("too many live connections from your address: at most %d (ws-per-address)", l.PerAddress)}
	case a.total >= l.Total:
		return nil, &wsRefusal{http.StatusServiceUnavailable, fmt.Sprintf("this server holds its maximum of %d live connections (ws-max-conns)", l.Total)}
	}
	added, addedForAddr := 0, 0
	held := a.addrTopics[addr]
	for t := range distinct {
		if a.topics[t] == 0 {
			added++
		}
		if held[t] == 0 {
			addedForAddr++
		}
	}
	if addedForAddr > 0 && len(held)+addedForAddr > l.TopicsPerAddress {
		return nil, &wsRefusal{http.StatusTooManyRequests, fmt.Sprintf("your address follows its maximum of %d distinct live topics (ws-topics-per-address)", l.TopicsPerAddress)}
	}
	if added > 0 && len(a.topics)+added > l.Topics {
		return nil, &wsRefusal{http.StatusServiceUnavailable, fmt.Sprintf("this server follows its maximum of %d distinct live topics (ws-max-topics)", l.Topics)}
	}
	a.total++
	a.perAddr[addr]++
	if held == nil {
		held = map[string]int{}
		a.addrTopics[addr] = held
	}
	for t := range distinct {
		a.topics[t]++
		held[t]++
	}
	return sync.OnceFunc(func() { a.release(addr, distinct) }), nil
}

func (a *wsAdmission) release(addr string, topics map[string]struct{}) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.total--
	if a.perAddr[addr]--; a.perAddr[addr] <= 0 {
		delete(a.perAddr, addr)
	}
	held := a.addrTopics[addr]
	for t := range topics {
		if a.topics[t]--; a.topics[t] <= 0 {
			delete(a.topics, t)
		}
		if held[t]--; held[t] <= 0 {
			delete(held, t)
		}
	}
	if len(held) == 0 {
		delete(a.addrTopics, addr)
	}
}

// serveWS admits a websocket within the limits, then hands it to the hub for its life. The
// server's read and write timeouts are lifted for it (it lives for hours; the hub keeps its
// own deadlines with pings), and with --trust-proxy the Origin check compares with the host
// the browser asked the proxy for.
func (s *server) serveWS(c echo.Context) error {
	r := c.Request()
	id, err := s.identify(c, true) // the connection's audience, for its whole life
	if err != nil {
		return err
	}
	if slices.Contains(r.URL.Query()["topic"], domain.TopicAudit) && !id.may(domain.RoleAdmin) {
		return domain.Errorf(domain.EFORBIDDEN, "the audit trail is for admins: its live topic is too")
	}
	release, refused := s.admission.admit(c.RealIP(), r.URL.Query()["topic"])
	if refused != nil {
		if refused.status == http.StatusTooManyRequests || refused.status == http.StatusServiceUnavailable {
			c.Response().Header().Set(echo.HeaderRetryAfter, strconv.Itoa(wsRetryAfter))
		}
		return c.String(refused.status, refused.msg)
	}
	rc := http.NewResponseController(c.Response())
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	if host := s.forwardedHost(r); host != "" {
		r.Host = host
	}
	over := make(chan struct{})
	ended := func() { release(); close(over) } // the slot is given back when the connection ends
	s.Hub.Serve(c.Response(), r, s.audienceOf(id), ended, s.sessionRevoked(c, id, over))
	return nil
}

// sessionRecheckEvery is how often a live connection opened with a session or a personal
// token checks that it still holds (Deps.SessionRecheck overrides it).
const sessionRecheckEvery = 10 * time.Second

// sessionRevoked watches the credential behind a live connection until the connection is
// over: a session (signed in) or a personal bearer token. Once it is gone (sign out, sign out
// everywhere on any instance, expiry, another admin token, the token revoked on any
// instance), its role changed, or it cannot be checked (Redis down: fail closed), the
// channel closes and the hub closes the connection, so nothing reaches it after that. Other
// connections (anonymous, the admin token, open access) have nothing to revoke: nil.
func (s *server) sessionRevoked(c echo.Context, id identity, over <-chan struct{}) <-chan struct{} {
	var recheck func(context.Context) (domain.Role, bool, error)
	switch {
	case id.signedIn:
		ck, err := c.Cookie(sessionCookie)
		if err != nil {
			return nil
		}
		recheck = func(ctx context.Context) (domain.Role, bool, error) {
			h, live, err := s.Auth.Session(ctx, ck.Value, s.tokenFingerprint)
			return h.Role, live, err
		}
	case id.tokenID != "" && id.secret != "" && s.Tokens != nil:
		recheck = func(ctx context.Context) (domain.Role, bool, error) {
			t, live, err := s.Tokens.TokenBySecret(ctx, id.secret)
			return t.Role, live, err
		}
	default:
		return nil
	}
	every := s.SessionRecheck
	if every <= 0 {
		every = sessionRecheckEvery
	}
	revoked := make(chan struct{})
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-over:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				role, live, err := recheck(ctx)
				cancel()
				if err != nil || !live || role != id.actor.Role {
					close(revoked)
					return
				}
			}
		}
	}()
	return revoked
}

// wsRetryAfter is the Retry-After of a refused websocket, in seconds: browsers' htmx
// reconnects back off by themselves; this tells other clients the same.
const wsRetryAfter = 10
