package web

import (
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/views"
)

// maxTry is the most requests the page's "try" form fires at once.
const maxTry = 100

// limiterPolicyForm handles the policy form, with htmx (the answer is the form, and the
// panel follows live) or without JavaScript (redirect back, or the page with the errors).
func (s *server) limiterPolicyForm(c echo.Context) error {
	name := pathParam(c, "limiter")
	if err := domain.ValidateLimiterName(name); err != nil {
		return err
	}
	f := views.PolicyForm{
		Algorithm: strings.TrimSpace(c.FormValue("algorithm")),
		Limit:     strings.TrimSpace(c.FormValue("limit")),
		Window:    strings.TrimSpace(c.FormValue("window")),
		Rate:      strings.TrimSpace(c.FormValue("rate")),
		Burst:     strings.TrimSpace(c.FormValue("burst")),
		Shared:    strings.TrimSpace(c.FormValue("shared")),
		Exists:    true,
		Errors:    map[string]string{},
	}
	p := domain.LimitPolicy{Name: name, Algorithm: domain.Algorithm(f.Algorithm)}
	if p.Algorithm == domain.TokenBucket {
		p.RatePerS = formNumber(f, "rate", f.Rate, "tokens a second, e.g. 10 or 0.5")
		p.Burst = formWhole(f, "burst", f.Burst, "tokens the bucket holds")
	} else {
		p.Limit = formWhole(f, "limit", f.Limit, "requests per window")
		if d, ok := parseDuration(f.Window, 0, math.MaxInt64); !ok {
			f.Errors["window"] = "window must be a duration such as 10s, 1m or 500ms (whole milliseconds)"
		} else {
			p.WindowMs = d.Milliseconds()
		}
		if f.Shared != "" {
			if d, ok := parseDuration(f.Shared, 0, math.MaxInt64); !ok {
				f.Errors["shared"] = "shared window must be blank or a duration such as 1m (whole milliseconds)"
			} else {
				p.SharedWindowMs = d.Milliseconds()
			}
		}
	}
	if len(f.Errors) == 0 {
		if err := p.Validate(); err != nil {
			f.Errors[policyField(domain.ErrorMessage(err))] = domain.ErrorMessage(err)
		}
	}
	status := http.StatusBadRequest
	if len(f.Errors) == 0 {
		saved, err := s.Limiters.SetPolicy(c.Request().Context(), p)
		if err == nil {
			if !isHTMX(c) {
				return seeOther(c, limiterPath(name)+"?saved=1")
			}
			if c.FormValue("new") == "1" {
				// A new policy: reload so the page shows the try form beside the live panel.
				c.Response().Header().Set("HX-Refresh", "true")
			}
			f = views.PolicyFormFrom(saved, true)
			f.Saved = true
			status = http.StatusOK
		} else {
			var message string
			var shown bool
			if status, message, shown = formFailure(err, "the policy was not saved"); !shown {
				return err
			}
			field := policyField(message)
			if code := domain.ErrorCode(err); code == domain.EUNAVAILABLE || code == domain.EUNKNOWN || code == domain.ECONFLICT {
				field = ""
			}
			f.Errors[field] = message
		}
	}
	if isHTMX(c) {
		return s.render(c, status, views.PolicyFormView(s.chrome(c, name), name, f))
	}
	return s.limiterPageWith(c, status, name, &f, views.TryForm{Client: "c-42", N: "5"})
}

// policyField tells which form field a policy validation message is about.
func policyField(msg string) string {
	if strings.HasPrefix(msg, "shared_window") {
		return "shared"
	}
	for _, f := range []string{"algorithm", "limit", "window", "rate", "burst"} {
		if strings.HasPrefix(msg, f) {
			return f
		}
	}
	return "algorithm"
}

func formWhole(f views.PolicyForm, field, value, what string) int64 {
	n, ok := parseWhole(value, 1, math.MaxInt64)
	if !ok {
		f.Errors[field] = field + " must be a whole number of " + what + ", 1 or more"
	}
	return n
}

func formNumber(f views.PolicyForm, field, value, what string) float64 {
	n, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) || n <= 0 {
		f.Errors[field] = field + " must be a number of " + what
	}
	return n
}

// limiterTryForm fires N checks for a client, one after another, and shows every answer.
func (s *server) limiterTryForm(c echo.Context) error {
	name := pathParam(c, "limiter")
	if err := domain.ValidateLimiterName(name); err != nil {
		return err
	}
	f := views.TryForm{
		Client: strings.TrimSpace(c.FormValue("client")),
		N:      strings.TrimSpace(c.FormValue("n")),
		Errors: map[string]string{},
	}
	if err := domain.ValidateClient(f.Client); err != nil {
		f.Errors["client"] = domain.ErrorMessage(err)
	}
	n, ok := parseWhole(f.N, 1, maxTry)
	if !ok {
		f.Errors["n"] = "requests must be a whole number from 1 to " + strconv.Itoa(maxTry)
	}
	status := http.StatusBadRequest
	if len(f.Errors) == 0 {
		status = http.StatusOK
		for range n {
			res, err := s.Limiters.Allow(c.Request().Context(), name, f.Client)
			if err != nil {
				var shown bool
				if status, f.Errors[""], shown = formFailure(err, "the requests after the "+strconv.Itoa(len(f.Results))+" shown were not sent"); !shown {
					return err
				}
				if domain.ErrorCode(err) == domain.ENOTFOUND {
					f.Errors[""] = "There is no policy " + strconv.Quote(name) + " yet: save one with the form first."
				}
				break
			}
			f.Results = append(f.Results, res)
		}
		// Show these checks at once rather than at the next periodic flush.
		if s.FlushLimiterChecks != nil {
			_ = s.FlushLimiterChecks(c.Request().Context())
		}
	}
	if isHTMX(c) {
		return s.render(c, status, views.TryFormView(s.chrome(c, name), name, f))
	}
	return s.limiterPageWith(c, status, name, nil, f)
}
