package web

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
)

type acquireLockRequest struct {
	TTLms    json.RawMessage `json:"ttl_ms"`
	WaitMs   json.RawMessage `json:"wait_ms"`
	Owner    *string         `json:"owner"`
	Watchdog json.RawMessage `json:"watchdog"`
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
	watchdog, err := watchdogInput.json(req.Watchdog)
	if err != nil {
		return err
	}
	opt := domain.LockOptions{TTL: domain.DefaultLockTTL, Watchdog: watchdog}
	if req.TTLms != nil {
		if opt.TTL, err = lockTTLInput.millis(req.TTLms); err != nil {
			return err
		}
	}
	if req.WaitMs != nil {
		if opt.Wait, err = lockWaitInput.millis(req.WaitMs); err != nil {
			return err
		}
	}
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
	return c.JSON(http.StatusOK, lease)
}

// releaseLockRequest is the body of a release: the token the lock was acquired with.
type releaseLockRequest struct {
	Token *string `json:"token"`
}

// extendLockRequest is the body of an extend: the token, and the new TTL (default
// domain.DefaultLockTTL).
type extendLockRequest struct {
	Token *string         `json:"token"`
	TTLms json.RawMessage `json:"ttl_ms"`
}

// lockAndToken is the lock in the path and the token of a release or extend body.
func lockAndToken(c echo.Context, token *string) (string, string, error) {
	name := pathParam(c, "lock")
	if err := domain.ValidateName("lock", name); err != nil {
		return "", "", err
	}
	if token == nil {
		return "", "", domain.Errorf(domain.EINVALID, "token is required: the token the lock was acquired with")
	}
	if err := domain.ValidateToken("token", *token); err != nil {
		return "", "", err
	}
	return name, *token, nil
}

// apiReleaseLock answers 204 when the lock is free, and 200 with the holds left when a
// reentrant owner still holds it.
func (s *server) apiReleaseLock(c echo.Context) error {
	var req releaseLockRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	name, token, err := lockAndToken(c, req.Token)
	if err != nil {
		return err
	}
	holds, err := s.Locks.Release(c.Request().Context(), name, token)
	if err != nil {
		return err
	}
	if holds > 0 {
		return c.JSON(http.StatusOK, map[string]any{"lock": name, "holds": holds})
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *server) apiExtendLock(c echo.Context) error {
	var req extendLockRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	name, token, err := lockAndToken(c, req.Token)
	if err != nil {
		return err
	}
	ttl := domain.DefaultLockTTL
	if req.TTLms != nil {
		if ttl, err = lockTTLInput.millis(req.TTLms); err != nil {
			return err
		}
	}
	lease, err := s.Locks.Extend(c.Request().Context(), name, token, ttl)
	if err != nil {
		return err
	}
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
	if err := decodeOptionalJSON(c, &req); err != nil {
		return err
	}
	if err := s.Locks.ForceRelease(c.Request().Context(), name, req.Token); err != nil {
		return err
	}
	s.Log.Warn("a lock was force-released through the API", "lock", name)
	return c.NoContent(http.StatusNoContent)
}

func (s *server) apiLocks(c echo.Context) error {
	held, err := s.Locks.List(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.audience(c).Locks(held))
}

func (s *server) apiLock(c echo.Context) error {
	info, err := s.Locks.Inspect(c.Request().Context(), pathParam(c, "lock"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.audience(c).Lock(info))
}
