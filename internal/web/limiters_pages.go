package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/panels"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

// limitersPage lists the policies; with ?limiter=<name> (the page's "open" form) it sends
// the browser to that limiter's page.
func (s *server) limitersPage(c echo.Context) error {
	if asked, err := openByName(c, "limiter", domain.ValidateLimiterName, limiterPath); asked {
		return err
	}
	ps, err := s.Limiters.Policies(c.Request().Context())
	if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
		return err
	}
	return s.render(c, http.StatusOK, views.LimitersPage(unavailable(s.chrome(c, "Rate limiters"), err), ps, s.adoptedViews(c, domain.SourceLimiter)))
}

func (s *server) limiterPage(c echo.Context) error {
	name := httpio.PathParam(c, "limiter")
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
	hist, topics, herr := s.pageHistory(c, domain.HistoryLimiter, name)
	if herr != nil {
		return herr
	}
	all, aerr := s.allClients(c, name)
	if aerr != nil {
		return aerr
	}
	ch := unavailable(s.chrome(c, "Limiter "+name, append([]string{panels.Limiter.Topic(name)}, topics...)...), err)
	return s.render(c, status, views.LimiterPage(ch, s.audience(c).Limiter(view), *policyForm, try, hist, all))
}

// clientsPerPage is how many clients a page of a limiter's "All clients" lists.
const clientsPerPage = 50

// allClients reads the page of ?cursor= of every client the limiter has seen, and looks up
// ?client= without counting a request (Peek). A bad cursor is a 400 naming it; a bad client
// id is an inline message.
func (s *server) allClients(c echo.Context, name string) (views.ClientsSection, error) {
	ctx := c.Request().Context()
	cursor := c.QueryParam("cursor")
	page, err := s.Limiters.Clients(ctx, name, cursor, clientsPerPage)
	switch domain.ErrorCode(err) {
	case "":
	case domain.EUNAVAILABLE:
		page = domain.ClientPage{}
	default:
		return views.ClientsSection{}, err
	}
	a := s.audience(c)
	for i := range page.Clients {
		page.Clients[i].Client = a.Client(page.Clients[i].Client)
	}
	out := views.ClientsSection{Page: page}
	if n, _ := strconv.Atoi(cursor); n > 0 {
		prev := ""
		if n > clientsPerPage {
			prev = strconv.Itoa(n - clientsPerPage)
		}
		out.Prev = &prev
	}
	if client := strings.TrimSpace(c.QueryParam("client")); client != "" {
		out.Client = client
		if out.Result, err = s.Limiters.Peek(ctx, name, client); err != nil {
			out.Err = domain.ErrorMessage(err)
		}
	}
	return out, nil
}
