package httpio

import (
	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
)

// The queries of a queue's jobs, as its page and the API read them.

// JobListOptions reads ?state=&limit=&cursor= (state defaults to waiting), validated.
func JobListOptions(c echo.Context) (domain.JobListOptions, error) {
	opt, err := jobListQuery(c)
	if err != nil {
		return opt, err
	}
	return opt, opt.Validate()
}

// jobListQuery reads ?state=&limit=&cursor= as they are. A prefix filter is refused with the
// way to search instead (domain.JobPrefixNote).
func jobListQuery(c echo.Context) (domain.JobListOptions, error) {
	if _, asked := c.QueryParams()["prefix"]; asked {
		return domain.JobListOptions{}, domain.Errorf(domain.EINVALID, "%s", domain.JobPrefixNote)
	}
	state := domain.JobWaiting
	if v := c.QueryParam("state"); v != "" {
		var err error
		if state, err = domain.ParseJobState(v); err != nil {
			return domain.JobListOptions{}, err
		}
	}
	limit, err := JobPageInput.Query(c, domain.DefaultJobPage)
	if err != nil {
		return domain.JobListOptions{}, err
	}
	return domain.JobListOptions{State: state, Limit: limit, Cursor: c.QueryParam("cursor")}, nil
}

// JobSearchOptions reads a search from ?state=&q=&limit=&cursor=. A viewer who may not see
// payloads (admin false: not an admin while an admin token is set) matches ids only: a payload match
// would tell what a payload holds.
func JobSearchOptions(c echo.Context, admin bool) (domain.JobSearchOptions, error) {
	list, err := jobListQuery(c)
	if err != nil {
		return domain.JobSearchOptions{}, err
	}
	opt := domain.JobSearchOptions{State: list.State, Text: c.QueryParam("q"), IDsOnly: !admin, Limit: list.Limit, Cursor: list.Cursor}
	return opt, opt.Validate()
}

// Searching says whether a jobs list asks for a search (?q=, even empty).
func Searching(c echo.Context) bool {
	_, ok := c.QueryParams()["q"]
	return ok
}
