package httpio

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
)

// The one table answers the API, the pages and the forms.
func TestErrorStatuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		err        error
		status     int
		code       string
		formStatus int // 0: not a form's to show
	}{
		{"invalid", domain.Errorf(domain.EINVALID, "bad"), http.StatusBadRequest, domain.EINVALID, http.StatusBadRequest},
		{"not found", domain.Errorf(domain.ENOTFOUND, "gone"), http.StatusNotFound, domain.ENOTFOUND, http.StatusBadRequest},
		{"conflict", domain.Errorf(domain.ECONFLICT, "taken"), http.StatusConflict, domain.ECONFLICT, http.StatusConflict},
		{"wrong type", domain.Errorf(domain.CodeWrongType, "key %q is a list, not a sorted set", "queue:rq"), http.StatusConflict, domain.CodeWrongType, http.StatusConflict},
		{"unavailable", domain.Errorf(domain.EUNAVAILABLE, "down"), http.StatusServiceUnavailable, domain.EUNAVAILABLE, http.StatusServiceUnavailable},
		{"wrapped", fmt.Errorf("redisrepo.Enqueue: %w", domain.Errorf(domain.ECONFLICT, "taken")), http.StatusConflict, domain.ECONFLICT, http.StatusConflict},
		{"rate limited", domain.Errorf(domain.ERATELIMITED, "slow down"), http.StatusTooManyRequests, domain.ERATELIMITED, 0},
		{"unauthorized", domain.Errorf(domain.EUNAUTHORIZED, "token"), http.StatusUnauthorized, domain.EUNAUTHORIZED, 0},
		{"plain error", errors.New("boom"), http.StatusInternalServerError, domain.EINTERNAL, 0},
		{"echo 403", echo.NewHTTPError(http.StatusForbidden, "invalid csrf token"), http.StatusForbidden, codeForbidden, 0},
		{"echo 404", echo.ErrNotFound, http.StatusNotFound, domain.ENOTFOUND, http.StatusBadRequest},
		{"echo 413", echo.NewHTTPError(http.StatusRequestEntityTooLarge), http.StatusRequestEntityTooLarge, codeTooLarge, 0},
		{"echo 418", echo.NewHTTPError(http.StatusTeapot), http.StatusTeapot, domain.EINTERNAL, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, code, message := DescribeError(tc.err)
			if status != tc.status || code != tc.code || message == "" {
				t.Errorf("DescribeError = %d %q %q; want %d %q", status, code, message, tc.status, tc.code)
			}
			if _, isHTTP := tc.err.(*echo.HTTPError); isHTTP {
				return // forms answer domain errors only
			}
			formStatus, _, shown := FormFailure(tc.err, "nothing was changed")
			if shown != (tc.formStatus != 0) || (shown && formStatus != tc.formStatus) {
				t.Errorf("FormFailure = %d, %v; want %d", formStatus, shown, tc.formStatus)
			}
		})
	}
}

// The error codes internal/web/openapi.json lists are the codes the table knows.
func TestOpenAPIErrorCodes(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas struct {
				Error struct {
					Properties struct {
						Error struct {
							Properties struct {
								Code struct {
									Enum []string `json:"enum"`
								} `json:"code"`
							} `json:"properties"`
						} `json:"error"`
					} `json:"properties"`
				} `json:"Error"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	listed := doc.Components.Schemas.Error.Properties.Error.Properties.Code.Enum
	var known []string
	for _, row := range errorStatuses {
		known = append(known, row.code)
	}
	slices.Sort(listed)
	slices.Sort(known)
	if len(listed) == 0 || !slices.Equal(listed, known) {
		t.Errorf("openapi.json error codes %v, errors.go %v", listed, known)
	}
}
