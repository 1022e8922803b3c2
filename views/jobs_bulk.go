package views

import (
	"net/url"
	"strconv"

	"github.com/zpulse/zpulse/internal/domain"
)

// jobSearchURL is a search of a queue's jobs in a state, at a cursor ("" from the start).
func jobSearchURL(queue string, state domain.JobState, text, cursor string) string {
	q := url.Values{"state": {string(state)}, "q": {text}}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	return queueURL(queue) + "/jobs?" + q.Encode()
}

// jobRow is a row of a jobs page: a job of the list, or a match of a search.
type jobRow struct {
	domain.JobListItem
	Match   string          // "id" or "payload" for a search's match
	Excerpt *domain.Excerpt // a payload match's text around it, for a reader who sees payloads
}

// jobRows are a jobs page's rows: the search's matches when it searched, else the list's.
func jobRows(p domain.JobPage, s *domain.JobSearchPage) []jobRow {
	var rows []jobRow
	if s != nil {
		for _, m := range s.Jobs {
			rows = append(rows, jobRow{m.JobListItem, m.Match, m.Excerpt})
		}
		return rows
	}
	for _, j := range p.Jobs {
		rows = append(rows, jobRow{JobListItem: j})
	}
	return rows
}

// bulkNeed is the role a jobs page's bulk actions need (the route's): none where there are
// none (completed jobs).
func bulkNeed(state domain.JobState) domain.Role {
	if state == domain.JobCompleted {
		return domain.RoleNone
	}
	return domain.RoleAdmin
}

// RetryForm is the edit and retry form: what was typed and its errors, and after "Show the
// changes" (Previewed) what the payload edit changes.
type RetryForm struct {
	Form
	Previewed bool
	Changes   []domain.PayloadChange
}

// RetryFormValues are the retry form's fields as a dead job has them now.
func RetryFormValues(j domain.JobDetail) RetryForm {
	f := NewForm()
	if len(j.Payload) > 0 {
		f.Values["payload"] = string(j.Payload)
	}
	if j.Priority != nil {
		f.Values["priority"] = strconv.Itoa(*j.Priority)
	}
	return RetryForm{Form: f}
}

// changeWhere is a payload change's path as the preview shows it.
func changeWhere(c domain.PayloadChange) string {
	if c.Path == "" {
		return "the whole payload"
	}
	return c.Path
}

// searchText is a search's text, "" without one.
func searchText(s *domain.JobSearchPage) string {
	if s == nil {
		return ""
	}
	return s.Text
}
