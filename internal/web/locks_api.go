package web

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
)

type acquireLockRequest struct {
	TTLms    json.RawMessage `json:"ttl_ms"`
	WaitMs   json.RawMessage `json:"wait_ms"`
	Owner    *string         `json:"owner"`
	Watchdog bool            `json:"watchdog"`
}

func (s *server) apiAcquireLock(c echo.Context) error {
	name := pathParam(c, "lock")
	if err := domain.ValidateName("lock", name); err != nil {
		return err
	}
	var req acquireLockRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	ttl, err := jsonMillis("ttl_ms", req.TTLms, domain.DefaultLockTTL, domain.MinLockTTL, domain.MaxLockTTL)
	if err != nil {
		return err
	}
	wait, err := jsonMillis("wait_ms", req.WaitMs, 0, 0, domain.MaxLockWait)
	if err != nil {
		return err
	}
	opt := domain.LockOptions{TTL: ttl, Wait: wait, Watchdog: req.Watchdog}
	if req.Owner != nil {
		if err := domain.ValidateToken("owner", *req.Owner); err != nil {
			return err
		}
		opt.Owner = *req.Owner
	}
	lease, err := s.Locks.Acquire(c.Request().Context(), name, opt)
	if err != nil {
		return err
	}
	s.Watcher.Nudge()
	return c.JSON(http.StatusOK, lease)
}

type lockTokenRequest struct {
	Token *string         `json:"token"`
	TTLms json.RawMessage `json:"ttl_ms"`
}

// tokenRequest reads {"token": ...} (and ttl_ms for extend) for the lock in the path.
func tokenRequest(c echo.Context, withTTL bool) (name, token string, ttl time.Duration, err error) {
	name = pathParam(c, "lock")
	if err = domain.ValidateName("lock", name); err != nil {
		return
	}
	var req lockTokenRequest
	if err = decodeJSON(c, &req); err != nil {
		return
	}
	if !withTTL && req.TTLms != nil {
		return "", "", 0, domain.Errorf(domain.EINVALID, `json: unknown field "ttl_ms" is not allowed here`)
	}
	if req.Token == nil {
		return "", "", 0, domain.Errorf(domain.EINVALID, "token is required: the token the lock was acquired with")
	}
	if err = domain.ValidateToken("token", *req.Token); err != nil {
		return
	}
	if withTTL {
		ttl, err = jsonMillis("ttl_ms", req.TTLms, domain.DefaultLockTTL, domain.MinLockTTL, domain.MaxLockTTL)
	}
	return name, *req.Token, ttl, err
}

// apiReleaseLock answers 204 when the lock is free, and 200 with the holds left when a
// reentrant owner still holds it.
func (s *server) apiReleaseLock(c echo.Context) error {
	name, token, _, err := tokenRequest(c, false)
	if err != nil {
		return err
	}
	holds, err := s.Locks.Release(c.Request().Context(), name, token)
	if err != nil {
		return err
	}
	s.Watcher.Nudge()
	if holds > 0 {
		return c.JSON(http.StatusOK, map[string]any{"lock": name, "holds": holds})
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *server) apiExtendLock(c echo.Context) error {
	name, token, ttl, err := tokenRequest(c, true)
	if err != nil {
		return err
	}
	lease, err := s.Locks.Extend(c.Request().Context(), name, token, ttl)
	if err != nil {
		return err
	}
	s.Watcher.Nudge()
	return c.JSON(http.StatusOK, lease)
}

type forceReleaseRequest struct {
	Token string `json:"token"`
}

// apiForceReleaseLock deletes a lock whoever holds it; with {"token": ...} only while that
// token holds it. The body is optional.
func (s *server) apiForceReleaseLock(c echo.Context) error {
	name := pathParam(c, "lock")
	if err := domain.ValidateName("lock", name); err != nil {
		return err
	}
	var req forceReleaseRequest
	if c.Request().ContentLength != 0 {
		if err := decodeJSON(c, &req); err != nil {
			return err
		}
	}
	if err := s.Locks.ForceRelease(c.Request().Context(), name, req.Token); err != nil {
		return err
	}
	s.Log.Warn("a lock was force-released through the API", "lock", name)
	s.Watcher.Nudge()
	return c.NoContent(http.StatusNoContent)
}

func (s *server) apiLocks(c echo.Context) error {
	held, err := s.Locks.List(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, held)
}

func (s *server) apiLock(c echo.Context) error {
	info, err := s.Locks.Inspect(c.Request().Context(), pathParam(c, "lock"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, info)
}

// jsonMillis reads an optional whole number of milliseconds from min to max (def when
// absent). Fractions, exponents, strings and null are refused, never rounded.
func jsonMillis(field string, raw json.RawMessage, def, min, max time.Duration) (time.Duration, error) {
	lit := strings.TrimSpace(string(raw))
	if lit == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(lit, 10, 64)
	if !integerLiteral.MatchString(lit) || err != nil || n < min.Milliseconds() || n > max.Milliseconds() {
		return 0, domain.Errorf(domain.EINVALID, "%s must be a JSON integer from %d to %d (milliseconds; got %s)",
			field, min.Milliseconds(), max.Milliseconds(), clipped(lit))
	}
	return time.Duration(n) * time.Millisecond, nil
}
