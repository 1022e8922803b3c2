package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// batchAnswer reads a batch's {"results": [...]} as raw items.
func batchAnswer(t *testing.T, body string) []map[string]any {
	t.Helper()
	var out struct {
		Results []map[string]any `json:"results"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("batch answer %q: %v", body, err)
	}
	return out.Results
}

func itemCode(item map[string]any) string {
	e, _ := item["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// Each item of a batch is its own step with its own answer: a bad or refused item fails
// alone, in the error envelope, and the others go through.
func TestBatchAPIs(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)

	// Scores: one good, one without a player, one beyond the range, one good again.
	status, body := s.postJSON(t, "/api/v1/boards/game/batch/scores",
		`{"scores":[{"player":"ann","points":5},{"points":1},{"player":"bob","points":1e300},{"player":"ann","points":2}]}`)
	if status != 200 {
		t.Fatalf("scores batch: %d %s", status, body)
	}
	res := batchAnswer(t, body)
	if len(res) != 4 || res[0]["score"] != 5.0 || itemCode(res[1]) != "invalid" || itemCode(res[2]) != "invalid" || res[3]["score"] != 7.0 || res[3]["rank"] != 1.0 {
		t.Errorf("scores batch answered %s", body)
	}
	if _, top := s.get(t, "/api/v1/boards/game/top"); !strings.Contains(top, `"ann"`) || strings.Contains(top, `"bob"`) {
		t.Errorf("after the batch the top is %s", top)
	}
	// Refused whole: too many, none, bad JSON.
	many := `{"scores":[` + strings.Repeat(`{"player":"p","points":1},`, 1000) + `{"player":"p","points":1}]}`
	for _, bad := range []string{many, `{"scores":[]}`, `{"scores":`} {
		if status, body := s.postJSON(t, "/api/v1/boards/game/batch/scores", bad); status != 400 {
			t.Errorf("bad batch: %d %s", status, body)
		}
	}

	// Jobs: five good, one a duplicate, one with a priority out of range.
	var jobs []string
	for i := range 5 {
		jobs = append(jobs, fmt.Sprintf(`{"id":"j%d","priority":1}`, i))
	}
	jobs = append(jobs, `{"id":"j0","priority":1}`, `{"id":"x","priority":12}`)
	status, body = s.postJSON(t, "/api/v1/queues/work/batch/jobs", `{"jobs":[`+strings.Join(jobs, ",")+`]}`)
	res = batchAnswer(t, body)
	if status != 200 || len(res) != 7 || res[4]["id"] != "j4" || itemCode(res[5]) != "conflict" || itemCode(res[6]) != "invalid" {
		t.Errorf("jobs batch: %d %s", status, body)
	}

	// Poll 3 of 5, each with its own token, then the 2 left, then none.
	status, body = s.postJSON(t, "/api/v1/queues/work/batch/poll", `{"count":3,"lease_ms":60000}`)
	var polled struct {
		Jobs []struct {
			ID    string `json:"id"`
			Token string `json:"token"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(body), &polled); status != 200 || err != nil || len(polled.Jobs) != 3 {
		t.Fatalf("poll batch: %d %s", status, body)
	}
	tokens := map[string]bool{}
	for _, j := range polled.Jobs {
		tokens[j.Token] = true
	}
	if len(tokens) != 3 || tokens[""] {
		t.Errorf("poll batch tokens: %s", body)
	}
	if _, body := s.postJSON(t, "/api/v1/queues/work/batch/poll", `{"count":100,"lease_ms":60000}`); strings.Count(body, `"token"`) != 2 {
		t.Errorf("second poll batch: %s", body)
	}
	if status, body := s.postJSON(t, "/api/v1/queues/work/batch/poll", `{"count":5,"lease_ms":60000}`); status != 200 || body != `{"jobs":[]}`+"\n" {
		t.Errorf("empty poll batch: %d %q", status, body)
	}
	if status, _ := s.postJSON(t, "/api/v1/queues/work/batch/poll", `{"count":101,"lease_ms":60000}`); status != 400 {
		t.Errorf("poll batch of 101: %d", status)
	}

	// Ack: two right, one with another job's token, one unknown.
	a, b, c := polled.Jobs[0], polled.Jobs[1], polled.Jobs[2]
	status, body = s.postJSON(t, "/api/v1/queues/work/batch/ack", fmt.Sprintf(`{"acks":[{"id":%q,"token":%q},{"id":%q,"token":%q},{"id":%q,"token":%q},{"id":"nope","token":"t"}]}`,
		a.ID, a.Token, b.ID, b.Token, c.ID, a.Token))
	res = batchAnswer(t, body)
	if status != 200 || len(res) != 4 || res[0]["acked"] != true || res[1]["acked"] != true || itemCode(res[2]) != "conflict" || itemCode(res[3]) == "" {
		t.Errorf("ack batch: %d %s", status, body)
	}
	if _, st := s.get(t, "/api/v1/queues/work"); !strings.Contains(st, `"processing":3`) {
		t.Errorf("after acking 2 of 5 leased: %s", st)
	}
}
