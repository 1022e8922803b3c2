package domain

import (
	"context"
	"time"
)

// SignInAttempts is the built-in limit on admin-token guesses per client address: sign-in
// forms and API bearer tokens count against one budget. It lives in code, not in Redis, so
// it holds from the first request and after Redis loses its data; only its counters live in
// Redis, and when they cannot be read the guess is refused (fail closed).
var SignInAttempts = LimitPolicy{Name: "zpulse-sign-in", Algorithm: FixedWindow, Limit: 10, WindowMs: 5 * 60 * 1000}

// AuthStore keeps what makes admin access hold across instances: attempt counters per
// address and server-side sessions that signing out ends.
type AuthStore interface {
	// Attempt settles one admin-token attempt of addr under SignInAttempts, in one atomic
	// step: a wrong token is counted, a right one only looks; Allowed is false when the
	// limit was already used up, and the attempt must then be refused, right or not. The
	// caller compares the token first (a local, constant-time step) and acts on the
	// comparison only when Allowed: deciding and counting at once is what keeps a burst of
	// guesses from passing the limit. Returns EUNAVAILABLE.
	Attempt(ctx context.Context, addr string, wrong bool) (LimitResult, error)

	// CreateSession records a new session of holder that lasts ttl and returns its id, a
	// secret for the browser's cookie. fingerprint ties it to the admin token it was opened
	// with, so changing the token ends it. Returns EUNAVAILABLE.
	CreateSession(ctx context.Context, ttl time.Duration, fingerprint string, holder SessionHolder) (string, error)

	// Session is the holder of the live session id opened with fingerprint; ok is false when
	// there is none (never opened, ended by EndSession or EndAllSessions, expired, opened
	// with another admin token). Returns EUNAVAILABLE.
	Session(ctx context.Context, id, fingerprint string) (holder SessionHolder, ok bool, err error)

	// EndSession ends one session (sign out). Returns EUNAVAILABLE.
	EndSession(ctx context.Context, id string) error

	// EndAllSessions ends every session at once (sign out everywhere). Returns EUNAVAILABLE.
	EndAllSessions(ctx context.Context) error
}
