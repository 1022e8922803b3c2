package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/views"
)

// A flash carries a form's success message across the redirect that follows a plain form post
// (post/redirect/get), in a cookie that lives for one page view.
const flashCookie = "zpulse_flash"

func setFlash(c echo.Context, formID, message string) {
	c.SetCookie(&http.Cookie{Name: flashCookie, Value: url.QueryEscape(formID + "|" + message), Path: "/",
		MaxAge: 60, HttpOnly: true, SameSite: http.SameSiteLaxMode})
}

// pageFlash is the flash as every page's frame shows it, at the top (views.Layout), cleared.
func pageFlash(c echo.Context) views.Flash {
	id, msg, ok := takeFlash(c)
	if !ok {
		return views.Flash{}
	}
	return views.Flash{ID: id, Message: msg}
}

// backWithin is where a form's success returns: the page it was sent from, with its tab or
// search (the Referer's query), when that page is fallback itself or lies under within (a
// board's or a queue's pages); fallback otherwise.
func backWithin(c echo.Context, fallback, within string) string {
	back := refererPath(c)
	path, _, _ := strings.Cut(back, "?")
	if path == fallback || path == within || strings.HasPrefix(path, within+"/") {
		return back
	}
	return fallback
}

// takeFlash returns and clears the flash, if any.
func takeFlash(c echo.Context) (formID, message string, ok bool) {
	ck, err := c.Cookie(flashCookie)
	if err != nil {
		return "", "", false
	}
	c.SetCookie(&http.Cookie{Name: flashCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	v, err := url.QueryUnescape(ck.Value)
	if err != nil {
		return "", "", false
	}
	formID, message, ok = strings.Cut(v, "|")
	return formID, message, ok
}
