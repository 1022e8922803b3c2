package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

// limiterPolicyForm handles the policy form, with htmx (the answer is the form, and the
// panel follows live) or without JavaScript (redirect back, or the page with the errors).
func (s *server) limiterPolicyForm(c echo.Context) error {
	name := httpio.PathParam(c, "limiter")
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
	p := bindPolicy(name, f)
	if len(f.Errors) == 0 {
		notePolicyError(f, p.Validate())
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
			if status, message, shown = httpio.FormFailure(err, "the policy was not saved"); !shown {
				return err
			}
			field := policyFormField(domain.ErrorField(err))
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

// bindPolicy reads the policy form's fields through the binder, noting the error of each
// field that is not a number of its kind.
func bindPolicy(name string, f views.PolicyForm) domain.LimitPolicy {
	p := domain.LimitPolicy{Name: name, Algorithm: domain.Algorithm(f.Algorithm)}
	var err error
	if p.Algorithm == domain.TokenBucket {
		p.RatePerS, err = httpio.RateInput.Parse(f.Rate)
		notePolicyError(f, err)
		p.Burst, err = httpio.BurstInput.Parse(f.Burst)
		notePolicyError(f, err)
		return p
	}
	p.Limit, err = httpio.LimitInput.Parse(f.Limit)
	notePolicyError(f, err)
	window, err := httpio.WindowInput.Text(f.Window)
	notePolicyError(f, err)
	p.WindowMs = window.Milliseconds()
	if f.Shared != "" {
		shared, err := httpio.SharedWindowInput.Text(f.Shared)
		notePolicyError(f, err)
		p.SharedWindowMs = shared.Milliseconds()
	}
	return p
}

// notePolicyError puts err's message beside the policy form's field it names.
func notePolicyError(f views.PolicyForm, err error) {
	if err != nil {
		f.Errors[policyFormField(domain.ErrorField(err))] = domain.ErrorMessage(err)
	}
}

// policyFormFields are the policy form's fields by the names the API and the domain's
// validation give them (domain.Error.Field), where the two differ.
var policyFormFields = map[string]string{
	"window_ms":        "window",
	"shared_window":    "shared",
	"shared_window_ms": "shared",
	"rate_per_s":       "rate",
}

// policyFormField is the policy form's field an error's Field names; an error about the whole
// policy goes above the form.
func policyFormField(field string) string {
	if f, ok := policyFormFields[field]; ok {
		return f
	}
	return field
}

// limiterTryForm fires N checks for a client, one after another, and shows every answer.
func (s *server) limiterTryForm(c echo.Context) error {
	name := httpio.PathParam(c, "limiter")
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
	n, err := httpio.TryInput.Parse(f.N)
	noteError(f.Errors, err)
	status := http.StatusBadRequest
	if len(f.Errors) == 0 {
		status = http.StatusOK
		for range n {
			res, err := s.Limiters.Allow(c.Request().Context(), name, f.Client)
			if err != nil {
				var shown bool
				if status, f.Errors[""], shown = httpio.FormFailure(err, "the requests after the "+strconv.Itoa(len(f.Results))+" shown were not sent"); !shown {
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
