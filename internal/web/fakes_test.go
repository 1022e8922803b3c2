package web

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/domain/mock"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo"
)

// fakes are the domain services of a server with no Redis: the tests of the HTTP layer's own
// behaviour (methods, status codes, envelopes, headers, logs) set the functions they need.
type fakes struct {
	Leaderboards mock.Leaderboards
	Queues       mock.Queues
	Limiters     mock.Limiters
	Locks        mock.Locks
	Sources      mock.Sources
	Schedules    mock.Schedules
	History      mock.History
	Auth         mock.Auth
	Watcher      fakeWatcher
}

// fakeWatcher is a live watcher that knows Redis answers and is never nudged into a tick.
type fakeWatcher struct{ status live.Status }

func (w *fakeWatcher) Status() live.Status { return w.status }
func (w *fakeWatcher) Nudge()              {}

// newFakeServer serves zpulse's handler over the services of f (a fakes with nothing in it
// when nil), with Deps adjusted by tweak; it needs no Redis, so tests using it run in parallel.
func newFakeServer(t testing.TB, adminToken string, f *fakes, tweak func(*Deps)) *testServer {
	t.Helper()
	if f == nil {
		f = &fakes{}
	}
	f.Watcher.status.Available = true
	if f.Auth.AttemptFn == nil && f.Auth.CreateSessionFn == nil && f.Auth.SessionFn == nil {
		memoryAuth(&f.Auth)
	}
	reg := prometheus.NewRegistry()
	d := Deps{
		Leaderboards: &f.Leaderboards, Queues: &f.Queues, Limiters: &f.Limiters, Locks: &f.Locks, Sources: &f.Sources, Schedules: &f.Schedules,
		History: &f.History, Auth: &f.Auth, Watcher: &f.Watcher,
		Hub: live.NewHub(live.NewMetrics(reg)), Registry: reg, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Ping: func(context.Context) error { return nil },
		Keys: redisrepo.DefaultKeys.Display(), AdminToken: adminToken, BigKey: bigKey,
	}
	if tweak != nil {
		tweak(&d)
	}
	return serveDeps(t, nil, d)
}

type memorySession struct {
	fingerprint string
	holder      domain.SessionHolder
}

// memoryAuth has a fake auth store keep sessions in memory and count wrong sign-in attempts
// per address under domain.SignInAttempts, as the contract of domain.AuthStore says: an
// attempt is refused once its address used up the limit; a wrong one is counted, a right one
// only looks.
func memoryAuth(a *mock.Auth) {
	var (
		mu       sync.Mutex
		sessions = map[string]memorySession{}
		wrongs   = map[string]int64{} // address -> wrong attempts
	)
	a.AttemptFn = func(_ context.Context, addr string, wrong bool) (domain.LimitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		if wrongs[addr] >= domain.SignInAttempts.Limit {
			return domain.LimitResult{Limit: domain.SignInAttempts.Limit, RetryAfterMs: domain.SignInAttempts.WindowMs}, nil
		}
		if wrong {
			wrongs[addr]++
		}
		return domain.LimitResult{Allowed: true, Limit: domain.SignInAttempts.Limit, Remaining: domain.SignInAttempts.Limit - wrongs[addr]}, nil
	}
	a.CreateSessionFn = func(_ context.Context, _ time.Duration, fingerprint string, h domain.SessionHolder) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		id := fmt.Sprintf("session-%d", len(sessions)+1)
		sessions[id] = memorySession{fingerprint, h}
		return id, nil
	}
	a.SessionFn = func(_ context.Context, id, fingerprint string) (domain.SessionHolder, bool, error) {
		mu.Lock()
		defer mu.Unlock()
		m, ok := sessions[id]
		if !ok || m.fingerprint != fingerprint {
			return domain.SessionHolder{}, false, nil
		}
		return m.holder, true, nil
	}
	a.EndSessionFn = func(_ context.Context, id string) error {
		mu.Lock()
		defer mu.Unlock()
		delete(sessions, id)
		return nil
	}
}

// memoryTokens is a personal token store in memory, for the HTTP layer's tests of roles: the
// secret of a token is its name prefixed "secret-".
type memoryTokens struct {
	mu     sync.Mutex
	tokens map[string]domain.APIToken // name -> token
}

var _ domain.TokenStore = (*memoryTokens)(nil)

func newMemoryTokens(roles map[string]domain.Role) *memoryTokens {
	m := &memoryTokens{tokens: map[string]domain.APIToken{}}
	for name, r := range roles {
		m.tokens[name] = domain.APIToken{ID: "id-" + name, Name: name, Role: r}
	}
	return m
}

func (m *memoryTokens) CreateToken(_ context.Context, n domain.NewAPIToken) (domain.APIToken, string, error) {
	if err := n.Validate(); err != nil {
		return domain.APIToken{}, "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.tokens[n.Name]; ok {
		return domain.APIToken{}, "", domain.FieldErrorf("name", domain.ECONFLICT, "a token named %q exists", n.Name)
	}
	t := domain.APIToken{ID: "id-" + n.Name, Name: n.Name, Role: n.Role, CreatedBy: n.CreatedBy, CreatedAt: testNow}
	m.tokens[n.Name] = t
	return t, "secret-" + n.Name, nil
}

func (m *memoryTokens) Tokens(context.Context) ([]domain.APIToken, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []domain.APIToken{}
	for _, t := range m.tokens {
		out = append(out, t)
	}
	return out, nil
}

func (m *memoryTokens) RevokeToken(_ context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.tokens[name]; !ok {
		return domain.Errorf(domain.ENOTFOUND, "no token is named %q", name)
	}
	delete(m.tokens, name)
	return nil
}

func (m *memoryTokens) TokenBySecret(_ context.Context, secret string) (domain.APIToken, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name, ok := strings.CutPrefix(secret, "secret-")
	t, found := m.tokens[name]
	return t, ok && found, nil
}
