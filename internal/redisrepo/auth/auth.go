package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/limiters"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Auth is the Redis implementation of domain.AuthStore.
type Auth struct {
	rdb   redis.UniversalClient
	keys  store.Keys
	clock domain.Clock // nil: Redis TIME inside the limit's script
}

var _ domain.AuthStore = (*Auth)(nil)

func NewAuth(rdb redis.UniversalClient, keys store.Keys, c store.Clocks) *Auth {
	return &Auth{rdb: rdb, keys: keys, clock: c.Script}
}

// Attempt runs the built-in policy's fixed window on addr's counter: counting a wrong
// attempt (the script refuses to count past the limit), looking for a right one. One
// script decides and counts, so concurrent guesses are decided one after another.
func (a *Auth) Attempt(ctx context.Context, addr string, wrong bool) (domain.LimitResult, error) {
	res, err := limiters.RunLimiter(ctx, a.rdb, a.clock, domain.SignInAttempts, a.keys.SignInAttempts(addr), wrong, nil)
	return res, store.OpError("auth.Auth.Attempt", err)
}

// CreateSession draws a 256-bit random id and records its hash.
func (a *Auth) CreateSession(ctx context.Context, ttl time.Duration, fingerprint string) (string, error) {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	id := base64.RawURLEncoding.EncodeToString(b[:])
	err := createSessionScript.Run(ctx, a.rdb, []string{a.keys.SessionGeneration(), a.keys.Session(SessionHash(id))},
		fingerprint, ttl.Milliseconds()).Err()
	if err != nil {
		return "", store.OpError("auth.Auth.CreateSession", err)
	}
	return id, nil
}

func (a *Auth) Session(ctx context.Context, id, fingerprint string) (bool, error) {
	if id == "" {
		return false, nil
	}
	n, err := checkSessionScript.Run(ctx, a.rdb, []string{a.keys.SessionGeneration(), a.keys.Session(SessionHash(id))}, fingerprint).Int64()
	if err != nil {
		return false, store.OpError("auth.Auth.Session", err)
	}
	return n == 1, nil
}

func (a *Auth) EndSession(ctx context.Context, id string) error {
	return store.OpError("auth.Auth.EndSession", a.rdb.Del(ctx, a.keys.Session(SessionHash(id))).Err())
}

func (a *Auth) EndAllSessions(ctx context.Context) error {
	return store.OpError("auth.Auth.EndAllSessions", a.rdb.Incr(ctx, a.keys.SessionGeneration()).Err())
}

// SessionHash is what names a session in Redis: the id itself stays in the browser.
func SessionHash(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}
