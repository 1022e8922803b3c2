package panels

import (
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
)

// Every topic a page asks for is valid, and nothing else is: made-up kinds, names no page
// could carry, overlong names.
func TestValidate(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{domain.TopicStatus, domain.TopicBoards, domain.TopicLocks, domain.TopicLimiters, domain.TopicQueues,
		domain.BoardTopic("排行榜:2048", domain.Daily, 25), domain.QueueTopic("mail jobs"), domain.JobTopic("email", "job 1"),
		domain.LimiterTopic("api"), domain.SourceTopic("shop"), domain.HistoryTopic(domain.HistoryQueue, "email", domain.HistoryHour)} {
		if err := Validate(ok); err != nil {
			t.Errorf("Validate(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"nonsense.x.1", "board:made-up:all:10", "queue." + strings.Repeat("a", 600), "", "status2", "limiter:"} {
		err := Validate(bad)
		if domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(err.Error(), bad[:min(len(bad), 60)]) {
			t.Errorf("Validate(%q) = %v, want EINVALID naming the topic", bad, err)
		}
	}
}
