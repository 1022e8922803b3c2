package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// A personal token's secret is "zpt_<id>_<key>": id is 8 random bytes in hex, the record's
// name in Redis; key is 32 random bytes, base64url. Only the SHA-256 of the whole secret is
// kept, and compared in constant time.
const tokenPrefix = "zpt_"

// usedEvery is how seldom a token's last use is written: at most once a minute per token and
// process, so a busy API client costs no write per call.
const usedEvery = time.Minute

type usedTokens struct {
	mu   sync.Mutex
	last map[string]time.Time // id -> when this process last wrote its use
}

// due says whether id's use at now should be written, and notes it.
func (u *usedTokens) due(id string, now time.Time) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if t, ok := u.last[id]; ok && now.Sub(t) < usedEvery {
		return false
	}
	if len(u.last) > 10_000 {
		clear(u.last)
	}
	u.last[id] = now
	return true
}

func secretHash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CreateToken draws the token's id and key and records its hash.
func (a *Auth) CreateToken(ctx context.Context, n domain.NewAPIToken) (domain.APIToken, string, error) {
	const op = "auth.Auth.CreateToken"
	if err := n.Validate(); err != nil {
		return domain.APIToken{}, "", err
	}
	var idb [8]byte
	var key [32]byte
	_, _ = rand.Read(idb[:])
	_, _ = rand.Read(key[:])
	id := hex.EncodeToString(idb[:])
	secret := tokenPrefix + id + "_" + base64.RawURLEncoding.EncodeToString(key[:])
	now := a.local.Now().Truncate(time.Millisecond)
	t := domain.APIToken{ID: id, Name: n.Name, Role: n.Role, CreatedAt: now, CreatedBy: n.CreatedBy}
	var expires int64
	if n.ExpiresIn > 0 {
		t.ExpiresAt = now.Add(n.ExpiresIn)
		expires = t.ExpiresAt.UnixMilli()
	}
	made, err := createTokenScript.Run(ctx, a.rdb, []string{a.keys.TokenName(n.Name), a.keys.Token(id), a.keys.Tokens()},
		id, expires, "name", n.Name, "role", n.Role.String(), "hash", secretHash(secret),
		"created_at", now.UnixMilli(), "created_by", n.CreatedBy, "expires_at", expires).Int64()
	if err != nil {
		return domain.APIToken{}, "", store.OpError(op, err)
	}
	if made == 0 {
		return domain.APIToken{}, "", domain.FieldErrorf("name", domain.ECONFLICT, "a token named %q exists: revoke it first or choose another name", n.Name)
	}
	return t, secret, nil
}

// Tokens reads every id's record in one pipeline; ids whose record expired are dropped.
func (a *Auth) Tokens(ctx context.Context) ([]domain.APIToken, error) {
	const op = "auth.Auth.Tokens"
	ids, err := a.rdb.SMembers(ctx, a.keys.Tokens()).Result()
	if err != nil {
		return nil, store.OpError(op, err)
	}
	if len(ids) == 0 {
		return []domain.APIToken{}, nil
	}
	pipe := a.rdb.Pipeline()
	reads := make([]*redis.MapStringStringCmd, len(ids))
	for i, id := range ids {
		reads[i] = pipe.HGetAll(ctx, a.keys.Token(id))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, store.OpError(op, err)
	}
	now := a.local.Now()
	out := []domain.APIToken{}
	var gone []any
	for i, r := range reads {
		t, ok := parseToken(ids[i], r.Val())
		if !ok || t.Expired(now) {
			gone = append(gone, ids[i])
			continue
		}
		out = append(out, t)
	}
	if len(gone) > 0 {
		// Only ids whose record is gone or expired: a new token never reuses an id.
		_ = a.rdb.SRem(ctx, a.keys.Tokens(), gone...).Err()
	}
	slices.SortFunc(out, func(x, y domain.APIToken) int { return strings.Compare(x.Name, y.Name) })
	return out, nil
}

// RevokeToken reads the name's id, then deletes both in one script that checks the name
// still names that id.
func (a *Auth) RevokeToken(ctx context.Context, name string) error {
	const op = "auth.Auth.RevokeToken"
	if err := domain.ValidateTokenName(name); err != nil {
		return err
	}
	id, err := a.rdb.Get(ctx, a.keys.TokenName(name)).Result()
	if errors.Is(err, redis.Nil) {
		return domain.Errorf(domain.ENOTFOUND, "no token is named %q", name)
	}
	if err != nil {
		return store.OpError(op, err)
	}
	n, err := revokeTokenScript.Run(ctx, a.rdb, []string{a.keys.TokenName(name), a.keys.Token(id), a.keys.Tokens()}, id).Int64()
	if err != nil {
		return store.OpError(op, err)
	}
	if n == 0 {
		return domain.Errorf(domain.ENOTFOUND, "no token is named %q", name)
	}
	return nil
}

// TokenBySecret reads the record the secret's id names (one HGETALL) and compares the
// secret's hash with the record's in constant time. Its use is written at most once a minute.
func (a *Auth) TokenBySecret(ctx context.Context, secret string) (domain.APIToken, bool, error) {
	const op = "auth.Auth.TokenBySecret"
	rest, ok := strings.CutPrefix(secret, tokenPrefix)
	id, _, ok2 := strings.Cut(rest, "_")
	if !ok || !ok2 || len(id) != 16 {
		return domain.APIToken{}, false, nil
	}
	if _, err := hex.DecodeString(id); err != nil {
		return domain.APIToken{}, false, nil
	}
	fields, err := a.rdb.HGetAll(ctx, a.keys.Token(id)).Result()
	if err != nil {
		return domain.APIToken{}, false, store.OpError(op, err)
	}
	t, found := parseToken(id, fields)
	stored, _ := hex.DecodeString(fields["hash"])
	given, _ := hex.DecodeString(secretHash(secret))
	if !found || subtle.ConstantTimeCompare(stored, given) != 1 {
		return domain.APIToken{}, false, nil
	}
	now := a.local.Now()
	if t.Expired(now) {
		return domain.APIToken{}, false, nil
	}
	if a.used.due(id, now) {
		// A lost write of the last use changes nothing but the list's column.
		_ = touchTokenScript.Run(ctx, a.rdb, []string{a.keys.Token(id)}, now.UnixMilli()).Err()
	}
	return t, true, nil
}

// tokenByID is the live token of id (a session's check).
func (a *Auth) tokenByID(ctx context.Context, id string) (domain.APIToken, bool, error) {
	fields, err := a.rdb.HGetAll(ctx, a.keys.Token(id)).Result()
	if err != nil {
		return domain.APIToken{}, false, err
	}
	t, ok := parseToken(id, fields)
	if !ok || t.Expired(a.local.Now()) {
		return domain.APIToken{}, false, nil
	}
	return t, true, nil
}

// parseToken reads a token's record; ok is false for a missing or broken one.
func parseToken(id string, f map[string]string) (domain.APIToken, bool) {
	if f["name"] == "" || f["hash"] == "" {
		return domain.APIToken{}, false
	}
	role, err := domain.ParseRole("role", f["role"])
	if err != nil {
		return domain.APIToken{}, false
	}
	t := domain.APIToken{ID: id, Name: f["name"], Role: role, CreatedBy: f["created_by"],
		CreatedAt: msTime(f["created_at"]), ExpiresAt: msTime(f["expires_at"]), LastUsed: msTime(f["last_used"])}
	return t, true
}

// msTime reads milliseconds since the epoch; zero for "", "0" or a broken value.
func msTime(s string) time.Time {
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil || ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}
