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
	for _, ok := range []string{domain.TopicStatus, domain.TopicBoards, domain.TopicLocks, domain.TopicLimiters, domain.TopicQueues, domain.TopicAudit, domain.TopicSchedules,
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

// A topic belongs to exactly one kind of panel, so the order the kinds are looked up in never
// matters, and every kind is declared.
func TestTopicsBelongToOneKind(t *testing.T) {
	t.Parallel()
	topics := []string{domain.TopicStatus, domain.TopicBoards, domain.TopicLocks, domain.TopicLimiters, domain.TopicQueues, domain.TopicAudit, domain.TopicSchedules,
		domain.BoardTopic("game:2048", domain.AllTime, 10), domain.BoardTopic("排行榜:2048", domain.Daily, 25),
		domain.QueueTopic("email"), domain.QueueTopic("mail jobs"), domain.JobTopic("email", "job 1"), domain.JobTopic("mail jobs", "x"),
		domain.LimiterTopic("api"), domain.SourceTopic("shop"), domain.HistoryTopic(domain.HistoryQueue, "email", domain.HistoryHour)}
	kinds := map[panel]bool{}
	for _, topic := range topics {
		var of []panel
		for _, k := range all {
			if _, ok := k.match(topic); ok {
				of = append(of, k)
			}
		}
		if len(of) != 1 {
			t.Errorf("%q parses as %d kinds of panel, want 1", topic, len(of))
			continue
		}
		kinds[of[0]] = true
	}
	if len(kinds) != len(all) {
		t.Errorf("the topics cover %d of the %d kinds", len(kinds), len(all))
	}
}
