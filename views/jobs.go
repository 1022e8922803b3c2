package views

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/zpulse/zpulse/internal/domain"
)

// JobPanelID is the id of a job's live panel.
func JobPanelID(queue, id string) string { return domID("job", queue+"\x00"+id) }

// jobPageURL is a job's page.
func jobPageURL(queue, id string) string { return queueURL(queue) + "/jobs/" + url.PathEscape(id) }

// jobsURL is a queue's list of jobs in a state, at a cursor ("" for the first page).
func jobsURL(queue string, state domain.JobState, cursor string) string {
	q := url.Values{"state": {string(state)}}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	return queueURL(queue) + "/jobs?" + q.Encode()
}

// prettyJSON indents a payload for reading; templ escapes what it prints.
func prettyJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

func stateLabel(s domain.JobState) string {
	switch s {
	case domain.JobWaiting:
		return "Waiting"
	case domain.JobScheduled:
		return "Scheduled"
	case domain.JobInFlight:
		return "In flight"
	case domain.JobDead:
		return "Dead"
	case domain.JobCompleted:
		return "Completed"
	}
	return "Gone"
}

func itemAtMs(j domain.JobListItem) int64 { return j.At.UnixMilli() }

func priorityText(p *int) string {
	if p == nil {
		return "—"
	}
	return strconv.Itoa(*p)
}

// ConfirmData is a confirmation step of a destructive action: what it will do, said before
// it is done, and the form that does it (a plain POST: no JavaScript needed).
type ConfirmData struct {
	Title   string
	What    []string // what the action will do, one sentence each
	Action  string   // the POST's URL
	Button  string
	Cancel  string // where "Cancel" goes
	Refused string // why it cannot be done ("" when it can)
	Error   string
	TestID  string
	Hidden  [][2]string // fields the POST carries beside the CSRF token: name, value
	Keeps   bool        // the action deletes nothing: its button is not the red one of a destructive action
	Need    domain.Role // the role the action needs (routes.go's declaration); RoleNone: admin
}

// need is the role the confirmed action needs: Need, or admin.
func (d ConfirmData) need() domain.Role {
	if d.Need == domain.RoleNone {
		return domain.RoleAdmin
	}
	return d.Need
}
