package main

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/views"
)

// maxTry is the most requests the page's "try" form fires at once.
const maxTry = 100

// ---- JSON API ----

// limiterPolicyRequest is the body of PUT /api/v1/limiters/:limiter. Whole numbers are read
// from their JSON literal so 1.5 or 1e3 is refused rather than rounded.
type limiterPolicyRequest struct {
	Algorithm *string         `json:"algorithm"`
	Limit     json.RawMessage `json:"limit"`
	WindowMs  json.RawMessage `json:"window_ms"`
	RatePerS  *float64        `json:"rate_per_s"`
	Burst     json.RawMessage `json:"burst"`
}

func (s *server) apiSetLimiter(c echo.Context) error {
	name := pathParam(c, "limiter")
	if err := domain.ValidateLimiterName(name); err != nil {
		return err
	}
	var req limiterPolicyRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Algorithm == nil {
		return domain.Errorf(domain.EINVALID, "algorithm is required: sliding_log, fixed_window, sliding_counter or token_bucket")
	}
	p := domain.LimitPolicy{Name: name, Algorithm: domain.Algorithm(*req.Algorithm)}
	var err error
	if p.Algorithm == domain.TokenBucket {
		if req.RatePerS == nil {
			return domain.Errorf(domain.EINVALID, "rate_per_s is required for token_bucket: tokens a second, from %g to %d", domain.MinRatePerS, domain.MaxRatePerS)
		}
		p.RatePerS = *req.RatePerS
		if p.Burst, err = jsonWhole(req.Burst, "burst", "tokens the bucket holds", 1, domain.MaxBurst); err != nil {
			return err
		}
	} else {
		if p.Limit, err = jsonWhole(req.Limit, "limit", "requests per window", 1, domain.MaxLimit); err != nil {
			return err
		}
		if p.WindowMs, err = jsonWhole(req.WindowMs, "window_ms", "milliseconds", domain.MinWindowMs, domain.MaxWindowMs); err != nil {
			return err
		}
	}
	p, err = s.Limiters.SetPolicy(c.Request().Context(), p)
	if err != nil {
		return err
	}
	s.Watcher.Nudge()
	return c.JSON(http.StatusOK, p)
}

// jsonWhole reads a required whole number from a raw JSON value, within [lo, hi].
func jsonWhole(raw json.RawMessage, field, what string, lo, hi int64) (int64, error) {
	lit := strings.TrimSpace(string(raw))
	if lit == "" || lit == "null" {
		return 0, domain.Errorf(domain.EINVALID, "%s is required: a whole number of %s from %d to %d", field, what, lo, hi)
	}
	n, err := strconv.ParseInt(lit, 10, 64)
	if !integerLiteral.MatchString(lit) || err != nil || n < lo || n > hi {
		return 0, domain.Errorf(domain.EINVALID, "%s must be a whole number of %s from %d to %d, without fraction or exponent (got %s)", field, what, lo, hi, clipped(lit))
	}
	return n, nil
}

func (s *server) apiLimiter(c echo.Context) error {
	p, err := s.Limiters.Policy(c.Request().Context(), pathParam(c, "limiter"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

func (s *server) apiLimiters(c echo.Context) error {
	ps, err := s.Limiters.Policies(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"limiters": ps})
}

type checkRequest struct {
	Client *string `json:"client"`
}

func (s *server) apiCheck(c echo.Context) error {
	var req checkRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Client == nil {
		return domain.Errorf(domain.EINVALID, "client is required: 1 to %d bytes of printable UTF-8", domain.MaxMemberBytes)
	}
	res, err := s.Limiters.Allow(c.Request().Context(), pathParam(c, "limiter"), *req.Client)
	if err != nil {
		return err
	}
	s.Watcher.Nudge()
	return c.JSON(http.StatusOK, res)
}

func (s *server) apiPeek(c echo.Context) error {
	res, err := s.Limiters.Peek(c.Request().Context(), pathParam(c, "limiter"), pathParam(c, "client"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// ---- pages ----

// limitersPage lists the policies; with ?limiter=<name> (the page's "open" form) it sends
// the browser to that limiter's page.
func (s *server) limitersPage(c echo.Context) error {
	if c.QueryParams().Has("limiter") {
		return s.openLimiter(c)
	}
	ps, err := s.Limiters.Policies(c.Request().Context())
	if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
		return err
	}
	return s.render(c, http.StatusOK, views.LimitersPage(unavailable(s.chrome(c, "Rate limiters"), err), ps))
}

// openLimiter sends the "open a limiter" form to the limiter's page. (Not a route of its own:
// any name under /limiters/ is a limiter, "open" included.)
func (s *server) openLimiter(c echo.Context) error {
	name := strings.TrimSpace(c.QueryParam("limiter"))
	if err := domain.ValidateLimiterName(name); err != nil {
		return err
	}
	return seeOther(c, limiterPath(name))
}

func limiterPath(name string) string { return "/limiters/" + url.PathEscape(name) }

func (s *server) limiterPage(c echo.Context) error {
	name := pathParam(c, "limiter")
	if err := domain.ValidateLimiterName(name); err != nil {
		return err
	}
	return s.limiterPageWith(c, http.StatusOK, name, nil, views.TryForm{Client: "c-42", N: "5"})
}

// limiterPageWith renders a limiter's page; policyForm nil shows the stored policy.
func (s *server) limiterPageWith(c echo.Context, status int, name string, policyForm *views.PolicyForm, try views.TryForm) error {
	view, err := s.Limiters.View(c.Request().Context(), name)
	if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
		return err
	}
	view.Policy.Name = name
	if policyForm == nil {
		f := views.PolicyFormFrom(view.Policy, view.Exists)
		if c.QueryParam("saved") != "" {
			f.Saved = true
		}
		policyForm = &f
	}
	ch := unavailable(s.chrome(c, "Limiter "+name, domain.LimiterTopic(name)), err)
	return s.render(c, status, views.LimiterPage(ch, view, *policyForm, try))
}

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
		Exists:    true,
		Errors:    map[string]string{},
	}
	p := domain.LimitPolicy{Name: name, Algorithm: domain.Algorithm(f.Algorithm)}
	if p.Algorithm == domain.TokenBucket {
		p.RatePerS = formNumber(f, "rate", f.Rate, "tokens a second, e.g. 10 or 0.5")
		p.Burst = formWhole(f, "burst", f.Burst, "tokens the bucket holds")
	} else {
		p.Limit = formWhole(f, "limit", f.Limit, "requests per window")
		if d, err := time.ParseDuration(f.Window); err != nil || d%time.Millisecond != 0 {
			f.Errors["window"] = "window must be a duration such as 10s, 1m or 500ms (whole milliseconds)"
		} else {
			p.WindowMs = d.Milliseconds()
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
		switch domain.ErrorCode(err) {
		case "":
			s.Watcher.Nudge()
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
		case domain.EUNAVAILABLE:
			f.Errors[""] = "Redis is unavailable, so the policy was not saved. Try again when the banner is gone."
			status = http.StatusServiceUnavailable
		case domain.EUNKNOWN:
			f.Errors[""], status = unknownOutcome, http.StatusServiceUnavailable
		default:
			return err
		}
	}
	if isHTMX(c) {
		return s.render(c, status, views.PolicyFormView(s.chrome(c, name), name, f))
	}
	return s.limiterPageWith(c, status, name, &f, views.TryForm{Client: "c-42", N: "5"})
}

// policyField tells which form field a policy validation message is about.
func policyField(msg string) string {
	for _, f := range []string{"algorithm", "limit", "window", "rate", "burst"} {
		if strings.HasPrefix(msg, f) {
			return f
		}
	}
	return "algorithm"
}

func formWhole(f views.PolicyForm, field, value, what string) int64 {
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil || n < 1 {
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
	if err := domain.ValidateMember("client", f.Client); err != nil {
		f.Errors["client"] = domain.ErrorMessage(err)
	}
	n, err := strconv.Atoi(f.N)
	if err != nil || n < 1 || n > maxTry {
		f.Errors["n"] = "requests must be a whole number from 1 to " + strconv.Itoa(maxTry)
	}
	status := http.StatusBadRequest
	if len(f.Errors) == 0 {
		status = http.StatusOK
		for range n {
			res, err := s.Limiters.Allow(c.Request().Context(), name, f.Client)
			if err != nil {
				switch domain.ErrorCode(err) {
				case domain.ENOTFOUND:
					f.Errors[""] = "There is no policy " + strconv.Quote(name) + " yet: save one with the form first."
					status = http.StatusBadRequest
				case domain.EUNAVAILABLE:
					f.Errors[""] = "Redis is unavailable: the requests after the " + strconv.Itoa(len(f.Results)) + " shown were not sent."
					status = http.StatusServiceUnavailable
				case domain.EUNKNOWN:
					f.Errors[""] = "Redis did not answer request " + strconv.Itoa(len(f.Results)+1) + ": it may or may not have been counted, and the requests after it were not sent."
					status = http.StatusServiceUnavailable
				default:
					return err
				}
				break
			}
			f.Results = append(f.Results, res)
		}
		// Show these checks at once rather than at the next periodic flush.
		if fl, ok := s.Limiters.(interface{ Flush(context.Context) error }); ok {
			_ = fl.Flush(c.Request().Context())
		}
		s.Watcher.Nudge()
	}
	if isHTMX(c) {
		return s.render(c, status, views.TryFormView(s.chrome(c, name), name, f))
	}
	return s.limiterPageWith(c, status, name, nil, f)
}
