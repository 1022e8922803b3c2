package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

// answerLockForms answers the acquire and release forms: with htmx the forms' section, without
// JavaScript the whole page. A success is not redirected (post/redirect/get) because the
// answer shows the lock's token, which must not travel in a URL.
func (s *server) answerLockForms(c echo.Context, status int, f views.LockForms) error {
	if isHTMX(c) {
		return s.render(c, status, views.LockFormsView(s.chrome(c, "Locks"), f))
	}
	return s.locksPageWith(c, status, f, "")
}

func (s *server) acquireLockForm(c echo.Context) error {
	f := views.LockForms{
		Lock: strings.TrimSpace(c.FormValue("lock")), TTL: strings.TrimSpace(c.FormValue("ttl")),
		Wait: strings.TrimSpace(c.FormValue("wait")), Owner: strings.TrimSpace(c.FormValue("owner")),
		Watchdog: c.FormValue("watchdog") != "", Errors: map[string]string{},
	}
	if err := domain.ValidateName("lock", f.Lock); err != nil {
		f.Errors["lock"] = domain.ErrorMessage(err)
	}
	ttl, err := httpio.LockTTLInput.Seconds(f.TTL)
	noteError(f.Errors, err)
	wait, err := httpio.LockWaitInput.Seconds(f.Wait)
	noteError(f.Errors, err)
	if f.Owner != "" {
		if err := domain.ValidateToken("owner", f.Owner); err != nil {
			f.Errors["owner"] = domain.ErrorMessage(err)
		}
	}
	if len(f.Errors) > 0 {
		return s.answerLockForms(c, http.StatusBadRequest, f)
	}
	lease, err := s.Locks.Acquire(c.Request().Context(), f.Lock, domain.LockOptions{TTL: ttl, Wait: wait, Owner: f.Owner, Watchdog: f.Watchdog})
	if err != nil {
		status, message, shown := httpio.FormFailure(err, "no lock was taken")
		if !shown {
			return err
		}
		f.Errors["acquire"] = message
		return s.answerLockForms(c, status, f)
	}
	f.Acquired = &lease
	f.ReleaseLock, f.Token = lease.Lock, lease.Token
	return s.answerLockForms(c, http.StatusOK, f)
}

func (s *server) releaseLockForm(c echo.Context) error {
	f := views.NewLockForms()
	f.ReleaseLock, f.Token = strings.TrimSpace(c.FormValue("release_lock")), strings.TrimSpace(c.FormValue("token"))
	f.Errors = map[string]string{}
	if err := domain.ValidateName("lock", f.ReleaseLock); err != nil {
		f.Errors["release_lock"] = domain.ErrorMessage(err)
	}
	if err := domain.ValidateToken("token", f.Token); err != nil {
		f.Errors["token"] = domain.ErrorMessage(err)
	}
	if len(f.Errors) > 0 {
		return s.answerLockForms(c, http.StatusBadRequest, f)
	}
	holds, err := s.Locks.Release(c.Request().Context(), f.ReleaseLock, f.Token)
	if err != nil {
		status, message, shown := httpio.FormFailure(err, "nothing was released")
		if !shown {
			return err
		}
		f.Errors["release"] = message
		return s.answerLockForms(c, status, f)
	}
	f.Released = "Released " + f.ReleaseLock + "."
	if holds > 0 {
		f.Released = "Released one hold of " + f.ReleaseLock + "; its owner still holds it " + strconv.FormatInt(holds, 10) + " more " + views.Plural(holds, "time", "times") + "."
	} else {
		f.Token = ""
	}
	return s.answerLockForms(c, http.StatusOK, f)
}

// forceReleaseForm releases the lock only if the holder the admin confirmed still holds it.
func (s *server) forceReleaseForm(c echo.Context) error {
	name := httpio.PathParam(c, "lock")
	if err := domain.ValidateKeyName("lock", name); err != nil {
		return err
	}
	token := c.FormValue("token")
	if s.Keys.InternalLock(name) && c.FormValue("internal") != "yes" {
		return s.forceReleasePageWith(c, http.StatusBadRequest, name, "This is one of zpulse's own locks: tick the box to confirm you want to release it.")
	}
	err := s.Locks.ForceRelease(c.Request().Context(), name, token)
	switch domain.ErrorCode(err) {
	case "":
		s.Log.Warn("a lock was force-released by an admin", "lock", name, "holder", token)
		return seeOther(c, "/locks?"+url.Values{"force_released": {name}}.Encode())
	case domain.ECONFLICT, domain.ENOTFOUND:
		return s.forceReleasePageWith(c, httpio.StatusOf(domain.ErrorCode(err)), name, domain.ErrorMessage(err))
	default:
		return err
	}
}
