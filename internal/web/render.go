package web

import (
	"context"
	"fmt"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/views"
)

// render writes a templ component as the HTML response: the one way handlers answer with HTML.
// A component that fails to render is answered by the error page, never half written.
func (s *server) render(c echo.Context, status int, t templ.Component) error {
	html, err := renderHTML(views.WithBasePath(c.Request().Context(), basePath(c)), t)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return c.HTMLBlob(status, html)
}

// renderHTML renders a component whole, for a response (render) or a live fragment
// (TopicRenderer).
func renderHTML(ctx context.Context, comp templ.Component) ([]byte, error) {
	buf := templ.GetBuffer()
	defer templ.ReleaseBuffer(buf)
	if err := comp.Render(ctx, buf); err != nil {
		return nil, fmt.Errorf("web.renderHTML: %w", err)
	}
	return append([]byte(nil), buf.Bytes()...), nil
}

// chrome is the frame of a page: title, live topics, badges, the CSRF token.
func (s *server) chrome(c echo.Context, title string, topics ...string) views.Chrome {
	token, _ := c.Get(middleware.DefaultCSRFConfig.ContextKey).(string)
	st := s.Watcher.Status()
	return views.Chrome{
		Title:      title,
		Topics:     topics,
		Embedded:   s.Embedded,
		AdminToken: s.protected(),
		SSO:        s.OIDC != nil,
		SignedIn:   who(c).signedIn,
		Actor:      who(c).actor,
		OpenAccess: s.OpenAccess,
		CSRF:       token,
		Status:     views.Status{Available: st.Available, Detail: st.Detail, Notice: st.Notice},
		Path:       c.Request().URL.RequestURI(),
		Keys:       s.Keys,
		LiveMode:   s.liveMode(),
		Notes:      s.indexNotes(),
		Recent:     s.recentChanges(c),
		Flash:      pageFlash(c),
	}
}

// indexNotes is Deps.IndexNotes's answer, or none.
func (s *server) indexNotes() []string {
	if s.IndexNotes == nil {
		return nil
	}
	return s.IndexNotes()
}

// liveMode is Deps.LiveMode's answer, or no mode.
func (s *server) liveMode() domain.LiveMode {
	if s.LiveMode == nil {
		return domain.LiveMode{}
	}
	return s.LiveMode()
}

// unavailable marks a page's frame with the banner when its own read found Redis down,
// before the watcher noticed.
func unavailable(ch views.Chrome, err error) views.Chrome {
	if domain.ErrorCode(err) == domain.EUNAVAILABLE {
		ch.Status = views.Status{Available: false, Detail: domain.ErrorMessage(err)}
		ch.Unread = true
	}
	return ch
}

func isHTMX(c echo.Context) bool { return c.Request().Header.Get("HX-Request") == "true" }
