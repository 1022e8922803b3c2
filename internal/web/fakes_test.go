package web

import (
	"context"
	"fmt"
	"io"
	"log/slog"
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
		Leaderboards: &f.Leaderboards, Queues: &f.Queues, Limiters: &f.Limiters, Locks: &f.Locks, Sources: &f.Sources,
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

// memoryAuth has a fake auth store keep sessions in memory and count wrong sign-in attempts
// per address under domain.SignInAttempts, as the contract of domain.AuthStore says: an
// attempt is refused once its address used up the limit; a wrong one is counted, a right one
// only looks.
func memoryAuth(a *mock.Auth) {
	var (
		mu       sync.Mutex
		sessions = map[string]string{} // id -> fingerprint
		wrongs   = map[string]int64{}  // address -> wrong attempts
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
	a.CreateSessionFn = func(_ context.Context, _ time.Duration, fingerprint string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		id := fmt.Sprintf("session-%d", len(sessions)+1)
		sessions[id] = fingerprint
		return id, nil
	}
	a.SessionFn = func(_ context.Context, id, fingerprint string) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		fp, ok := sessions[id]
		return ok && fp == fingerprint, nil
	}
	a.EndSessionFn = func(_ context.Context, id string) error {
		mu.Lock()
		defer mu.Unlock()
		delete(sessions, id)
		return nil
	}
}
