package api

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

type acquireLockRequest struct {
	TTLms    json.RawMessage `json:"ttl_ms"`
	WaitMs   json.RawMessage `json:"wait_ms"`
	Owner    *string         `json:"owner"`
	Watchdog json.RawMessage `json:"watchdog"`
}

func (h *Handlers) AcquireLock(c echo.Context) error {
	name := httpio.PathParam(c, "lock")
	if err := domain.ValidateName("lock", name); err != nil {
		return err
	}
	var req acquireLockRequest
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	watchdog, err := httpio.WatchdogInput.JSON(req.Watchdog)
	if err != nil {
		return err
	}
	opt := domain.LockOptions{TTL: domain.DefaultLockTTL, Watchdog: watchdog}
	if req.TTLms != nil {
		if opt.TTL, err = httpio.LockTTLInput.Millis(req.TTLms); err != nil {
			return err
		}
	}
	if req.WaitMs != nil {
		if opt.Wait, err = httpio.LockWaitInput.Millis(req.WaitMs); err != nil {
			return err
		}
	}
	if req.Owner != nil {
		if err := domain.ValidateToken("owner", *req.Owner); err != nil {
			return err
		}
		opt.Owner = *req.Owner
	}
	lease, err := h.Locks.Acquire(c.Request().Context(), name, opt)
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
	name := httpio.PathParam(c, "lock")
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

// ReleaseLock answers 204 when the lock is free, and 200 with the holds left when a
// reentrant owner still holds it.
func (h *Handlers) ReleaseLock(c echo.Context) error {
	var req releaseLockRequest
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	name, token, err := lockAndToken(c, req.Token)
	if err != nil {
		return err
	}
	holds, err := h.Locks.Release(c.Request().Context(), name, token)
	if err != nil {
		return err
	}
	if holds > 0 {
		return c.JSON(http.StatusOK, map[string]any{"lock": name, "holds": holds})
	}
	return c.NoContent(http.StatusNoContent)
}

func (h *Handlers) ExtendLock(c echo.Context) error {
	var req extendLockRequest
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	name, token, err := lockAndToken(c, req.Token)
	if err != nil {
		return err
	}
	ttl := domain.DefaultLockTTL
	if req.TTLms != nil {
		if ttl, err = httpio.LockTTLInput.Millis(req.TTLms); err != nil {
			return err
		}
	}
	lease, err := h.Locks.Extend(c.Request().Context(), name, token, ttl)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, lease)
}

type forceReleaseRequest struct {
	Token string `json:"token"`
}

// ForceReleaseLock deletes a lock whoever holds it; with {"token": ...} only while that
// token holds it. The body is optional.
func (h *Handlers) ForceReleaseLock(c echo.Context) error {
	name := httpio.PathParam(c, "lock")
	if err := domain.ValidateName("lock", name); err != nil {
		return err
	}
	var req forceReleaseRequest
	if err := httpio.DecodeOptionalJSON(c, &req); err != nil {
		return err
	}
	if err := h.Locks.ForceRelease(c.Request().Context(), name, req.Token); err != nil {
		return err
	}
	h.Log.Warn("a lock was force-released through the API", "lock", name)
	return c.NoContent(http.StatusNoContent)
}

func (h *Handlers) ListLocks(c echo.Context) error {
	held, err := h.Locks.List(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, h.Audience(c).Locks(held))
}

func (h *Handlers) Lock(c echo.Context) error {
	info, err := h.Locks.Inspect(c.Request().Context(), httpio.PathParam(c, "lock"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, h.Audience(c).Lock(info))
}
