package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

func (s *server) locksPage(c echo.Context) error {
	flash := ""
	if name := c.QueryParam("force_released"); domain.ValidateKeyName("lock", name) == nil {
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
	return s.render(c, status, views.LocksPage(ch, s.audience(c).Locks(held), f, flash))
}

func (s *server) forceReleasePage(c echo.Context) error {
	name := httpio.PathParam(c, "lock")
	if err := domain.ValidateKeyName("lock", name); err != nil {
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
	return s.render(c, status, views.ForceReleasePage(s.chrome(c, "Force-release "+name), s.audience(c).Lock(info), err == nil, errMsg))
}
