package domain

import (
	"context"
	"regexp"
	"time"
)

// APIToken is a personal API token as zpulse keeps it: never its secret, which is shown once
// when it is made and stored only as a hash.
type APIToken struct {
	// ID is the token's public reference, the first part of its secret (not enough alone): a
	// session opened with the token names it, so revoking the token ends the session.
	ID        string
	Name      string
	Role      Role
	CreatedAt time.Time
	CreatedBy string    // the actor who made it
	ExpiresAt time.Time // zero: never
	LastUsed  time.Time // zero: never used; recorded at most about once a minute
}

// Expired says whether t has expired at now.
func (t APIToken) Expired(now time.Time) bool {
	return !t.ExpiresAt.IsZero() && !now.Before(t.ExpiresAt)
}

// NewAPIToken is what making a token takes.
type NewAPIToken struct {
	Name      string
	Role      Role
	ExpiresIn time.Duration // 0: never expires
	CreatedBy string
}

// MaxTokenLife bounds a token's expires_in.
const MaxTokenLife = 5 * 366 * 24 * time.Hour

var tokenNamePattern = regexp.MustCompile(`^[a-z0-9._-]{1,64}$`)

// ValidateTokenName checks a personal token's name: 1 to 64 characters of a-z 0-9 . _ -.
// Returns EINVALID naming field "name".
func ValidateTokenName(name string) error {
	if !tokenNamePattern.MatchString(name) {
		return FieldErrorf("name", EINVALID, "name must be 1 to 64 characters from a-z, 0-9 and . _ - (got %q)", clip(name))
	}
	return nil
}

// Validate checks a token to make. Returns EINVALID naming the field.
func (n NewAPIToken) Validate() error {
	if err := ValidateTokenName(n.Name); err != nil {
		return err
	}
	if n.Role < RoleViewer || n.Role > RoleAdmin {
		return FieldErrorf("role", EINVALID, "role must be viewer, operator or admin")
	}
	if n.ExpiresIn < 0 || n.ExpiresIn > MaxTokenLife {
		return FieldErrorf("expires_in", EINVALID, "expires_in must be a positive Go duration such as 720h, at most %s, or left out for a token that does not expire", FormatDuration(MaxTokenLife))
	}
	return nil
}

// TokenStore keeps personal API tokens in Redis, so every instance knows them and a
// revocation holds everywhere at once.
type TokenStore interface {
	// CreateToken makes a token and returns it with its secret, which is not kept: only its
	// hash is. Returns EINVALID, ECONFLICT (the name is in use), EUNAVAILABLE.
	CreateToken(ctx context.Context, n NewAPIToken) (APIToken, string, error)

	// Tokens lists the live tokens by name. Returns EUNAVAILABLE.
	Tokens(ctx context.Context) ([]APIToken, error)

	// RevokeToken deletes a token at once. Returns ENOTFOUND, EUNAVAILABLE.
	RevokeToken(ctx context.Context, name string) error

	// TokenBySecret is the live token whose secret is secret (compared in constant time with
	// the stored hash), and records its use; ok is false for a malformed, unknown, revoked or
	// expired secret. Returns EUNAVAILABLE.
	TokenBySecret(ctx context.Context, secret string) (t APIToken, ok bool, err error)
}

// SessionHolder is who a browser session is for: a person's or a token's name, the role they
// signed in with, and the ID of the personal token they signed in with ("" for the admin
// token or single sign-on), whose revocation or expiry ends the session.
type SessionHolder struct {
	Name  string
	Role  Role
	Token string
}
