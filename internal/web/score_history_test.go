package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// A player's score history over the API (newest first, paged) and in the board page's
// lookup, which says other services' writes are not in it. One server and the Cluster.
func TestAPIPlayerHistory(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		s := newTestServer(t, "", rdb)
		for _, pts := range []string{"5", "7"} {
			if status, body := s.postJSON(t, "/api/v1/boards/game:2048/scores", `{"player":"p1","points":`+pts+`}`); status != http.StatusOK {
				t.Fatalf("add: %d %s", status, body)
			}
		}
		status, body := s.get(t, "/api/v1/boards/game:2048/players/p1/history?limit=1")
		var h domain.ScoreHistory
		if err := json.Unmarshal([]byte(body), &h); status != http.StatusOK || err != nil || len(h.Events) != 1 || h.Events[0].Points != 7 ||
			h.Events[0].Score != 12 || h.Events[0].Action != "add" || h.Events[0].Actor == "" || h.Next == "" {
			t.Fatalf("history: %d %s; want +7 → 12 and a next cursor", status, body)
		}
		status, body = s.get(t, "/api/v1/boards/game:2048/players/p1/history?limit=1&cursor="+h.Next)
		if status != http.StatusOK || !strings.Contains(body, `"points":5,"score":5`) {
			t.Errorf("older page: %d %s", status, body)
		}
		if status, body := s.get(t, "/api/v1/boards/game:2048/players/p1/history?limit=0"); status != http.StatusBadRequest {
			t.Errorf("limit 0: %d %s; want 400", status, body)
		}
		status, body = s.get(t, "/boards/game:2048?player=p1")
		if status != http.StatusOK || strings.Count(body, `data-testid="score-event"`) != 2 || !strings.Contains(body, `data-testid="score-history-note"`) ||
			!strings.Contains(body, "+7") {
			t.Errorf("lookup: %d; want the two changes and the note", status)
		}
	})
}
