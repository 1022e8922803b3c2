package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/views"
)

// ---- pages ----

func (s *server) locksPage(c echo.Context) error {
	flash := ""
	if name := c.QueryParam("force_released"); domain.ValidateName("lock", name) == nil {
		flash = "Lock " + name + " was force-released."
	}
	return s.locksPageWith(c, http.StatusOK, views.NewLockForms(), flash)
}

func (s *server) locksPageWith(c echo.Context, status int, f views.LockForms, flash string) error {
	held, err := s.Locks.List(c.Request().Context())
	if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
		return err
	}
	ch := unavailable(s.chrome(c, "Locks", domain.TopicLocks), err)
	return s.render(c, status, views.LocksPage(ch, held, f, flash))
}

// lockForms answers the acquire and release forms: with htmx the forms' section, without
// JavaScript the whole page. A success is not redirected (post/redirect/get) because the
// answer shows the lock's token, which must not travel in a URL.
func (s *server) lockForms(c echo.Context, status int, f views.LockForms) error {
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
	ttl, msg := formSeconds("TTL", f.TTL, domain.MinLockTTL, domain.MaxLockTTL)
	if msg != "" {
		f.Errors["ttl"] = msg
	}
	wait, msg := formSeconds("Wait", f.Wait, 0, domain.MaxLockWait)
	if msg != "" {
		f.Errors["wait"] = msg
	}
	if f.Owner != "" {
		if err := domain.ValidateToken("owner", f.Owner); err != nil {
			f.Errors["owner"] = domain.ErrorMessage(err)
		}
	}
	if len(f.Errors) > 0 {
		return s.lockForms(c, http.StatusBadRequest, f)
	}
	lease, err := s.Locks.Acquire(c.Request().Context(), f.Lock, domain.LockOptions{TTL: ttl, Wait: wait, Owner: f.Owner, Watchdog: f.Watchdog})
	status := formStatus(err)
	switch domain.ErrorCode(err) {
	case "":
		s.Watcher.Nudge()
		f.Acquired = &lease
		f.ReleaseLock, f.Token = lease.Lock, lease.Token
	case domain.ECONFLICT, domain.EINVALID:
		f.Errors["acquire"] = domain.ErrorMessage(err)
	case domain.EUNAVAILABLE:
		f.Errors["acquire"] = "Redis is unavailable, so no lock was taken. Try again when the banner is gone."
	case domain.EUNKNOWN:
		f.Errors["acquire"] = unknownOutcome
	default:
		return err
	}
	return s.lockForms(c, status, f)
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
		return s.lockForms(c, http.StatusBadRequest, f)
	}
	holds, err := s.Locks.Release(c.Request().Context(), f.ReleaseLock, f.Token)
	status := formStatus(err)
	switch domain.ErrorCode(err) {
	case "":
		s.Watcher.Nudge()
		f.Released = "Released " + f.ReleaseLock + "."
		if holds > 0 {
			f.Released = "Released one hold of " + f.ReleaseLock + "; its owner still holds it " + strconv.FormatInt(holds, 10) + " more " + pluralWord(holds, "time", "times") + "."
		} else {
			f.Token = ""
		}
	case domain.ECONFLICT, domain.EINVALID:
		f.Errors["release"] = domain.ErrorMessage(err)
	case domain.EUNAVAILABLE:
		f.Errors["release"] = "Redis is unavailable, so nothing was released. Try again when the banner is gone."
	case domain.EUNKNOWN:
		f.Errors["release"] = unknownOutcome
	default:
		return err
	}
	return s.lockForms(c, status, f)
}

// formStatus is the status of a form's answer after a domain call.
func formStatus(err error) int {
	if err == nil {
		return http.StatusOK
	}
	if status, ok := errorStatus[domain.ErrorCode(err)]; ok {
		return status
	}
	return http.StatusInternalServerError
}

func pluralWord(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (s *server) forceReleasePage(c echo.Context) error {
	name := pathParam(c, "lock")
	if err := domain.ValidateName("lock", name); err != nil {
		return err
	}
	return s.forceReleasePageWith(c, http.StatusOK, name, "")
}

func (s *server) forceReleasePageWith(c echo.Context, status int, name, errMsg string) error {
	info, err := s.Locks.Inspect(c.Request().Context(), name)
	switch domain.ErrorCode(err) {
	case "":
	case domain.ENOTFOUND:
		info.Lock = name
		if status == http.StatusOK {
			status = http.StatusNotFound
		}
	default:
		return err
	}
	return s.render(c, status, views.ForceReleasePage(s.chrome(c, "Force-release "+name), info, err == nil, errMsg))
}

// forceReleaseForm releases the lock only if the holder the admin confirmed still holds it.
func (s *server) forceReleaseForm(c echo.Context) error {
	name := pathParam(c, "lock")
	if err := domain.ValidateName("lock", name); err != nil {
		return err
	}
	token := c.FormValue("token")
	err := s.Locks.ForceRelease(c.Request().Context(), name, token)
	switch domain.ErrorCode(err) {
	case "":
		s.Log.Warn("a lock was force-released by an admin", "lock", name, "holder", token)
		s.Watcher.Nudge()
		return seeOther(c, "/locks?"+url.Values{"force_released": {name}}.Encode())
	case domain.ECONFLICT, domain.ENOTFOUND:
		return s.forceReleasePageWith(c, formStatus(err), name, domain.ErrorMessage(err))
	default:
		return err
	}
}

// ---- API ----

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

var secondsLiteral = regexp.MustCompile(`^[0-9]{1,6}(\.[0-9]{1,3})?$`)

// formSeconds reads seconds as typed in a form ("30", "0.5", down to milliseconds), or
// says what is allowed.
func formSeconds(label, s string, min, max time.Duration) (time.Duration, string) {
	bad := fmt.Sprintf("%s must be a number of seconds from %s to %s, with at most 3 decimals",
		label, strconv.FormatFloat(min.Seconds(), 'f', -1, 64), strconv.FormatFloat(max.Seconds(), 'f', -1, 64))
	if !secondsLiteral.MatchString(s) {
		return 0, bad
	}
	whole, frac, _ := strings.Cut(s, ".")
	secs, _ := strconv.ParseInt(whole, 10, 64)
	ms, _ := strconv.ParseInt((frac + "000")[:3], 10, 64)
	d := time.Duration(secs)*time.Second + time.Duration(ms)*time.Millisecond
	if d < min || d > max {
		return 0, bad
	}
	return d, ""
}
