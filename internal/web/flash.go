package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
)

// A flash carries a form's success message across the redirect that follows a plain form post
// (post/redirect/get), in a cookie that lives for one page view.
const flashCookie = "zpulse_flash"

func setFlash(c echo.Context, formID, message string) {
	c.SetCookie(&http.Cookie{Name: flashCookie, Value: url.QueryEscape(formID + "|" + message), Path: "/",
		MaxAge: 60, HttpOnly: true, SameSite: http.SameSiteLaxMode})
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
