package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
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
	local domain.Clock // tokens' creation, expiry and last use
	used  *usedTokens
}

var (
	_ domain.AuthStore  = (*Auth)(nil)
	_ domain.TokenStore = (*Auth)(nil)
)

func NewAuth(rdb redis.UniversalClient, keys store.Keys, c store.Clocks) *Auth {
	return &Auth{rdb: rdb, keys: keys, clock: c.Script, local: c.Local(), used: &usedTokens{last: map[string]time.Time{}}}
}

// Attempt runs the built-in policy's fixed window on addr's counter: counting a wrong
// attempt (the script refuses to count past the limit), looking for a right one. One
// script decides and counts, so concurrent guesses are decided one after another.
func (a *Auth) Attempt(ctx context.Context, addr string, wrong bool) (domain.LimitResult, error) {
	res, err := limiters.RunLimiter(ctx, a.rdb, a.clock, domain.SignInAttempts, a.keys.SignInAttempts(addr), wrong, nil)
	return res, store.OpError("auth.Auth.Attempt", err)
}

// CreateSession draws a 256-bit random id and records its hash with the holder.
func (a *Auth) CreateSession(ctx context.Context, ttl time.Duration, fingerprint string, h domain.SessionHolder) (string, error) {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	id := base64.RawURLEncoding.EncodeToString(b[:])
	holder := h.Role.String() + ":" + h.Token + ":" + h.Name
	err := createSessionScript.Run(ctx, a.rdb, []string{a.keys.SessionGeneration(), a.keys.Session(SessionHash(id))},
		fingerprint, ttl.Milliseconds(), holder).Err()
	if err != nil {
		return "", store.OpError("auth.Auth.CreateSession", err)
	}
	return id, nil
}

// Session reads the session's record; one opened with a personal token holds only while the
// token does (a second read, of the token's record).
func (a *Auth) Session(ctx context.Context, id, fingerprint string) (domain.SessionHolder, bool, error) {
	if id == "" {
		return domain.SessionHolder{}, false, nil
	}
	v, err := checkSessionScript.Run(ctx, a.rdb, []string{a.keys.SessionGeneration(), a.keys.Session(SessionHash(id))}, fingerprint).Text()
	if err != nil {
		return domain.SessionHolder{}, false, store.OpError("auth.Auth.Session", err)
	}
	parts := strings.SplitN(v, ":", 3)
	if len(parts) != 3 {
		return domain.SessionHolder{}, false, nil
	}
	role, err := domain.ParseRole("role", parts[0])
	if err != nil {
		return domain.SessionHolder{}, false, nil
	}
	h := domain.SessionHolder{Role: role, Token: parts[1], Name: parts[2]}
	if h.Token != "" {
		if _, ok, err := a.tokenByID(ctx, h.Token); err != nil || !ok {
			return domain.SessionHolder{}, false, store.OpError("auth.Auth.Session", err)
		}
	}
	return h, true, nil
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
