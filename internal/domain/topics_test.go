package domain

import (
	"strings"
	"testing"
)

// A topic carries any board or queue name that exists, and reads back the same name: names
// zpulse could create as they are, others (another service's) encoded, so that the live
// endpoint's ASCII topic pattern holds them.
func TestTopicsCarryAnyName(t *testing.T) {
	for _, name := range []string{"game:2048", "排行榜:2048", "mail jobs", "a/b?c#d%", strings.Repeat("é", MaxKeyNameBytes/2), "\x00\xff"} {
		topic := BoardTopic(name, Daily, 25)
		board, period, n, ok := ParseBoardTopic(topic)
		if !ok || board != name || period != Daily || n != 25 {
			t.Errorf("ParseBoardTopic(%q) = %q, %q, %d, %v; want %q", topic, board, period, n, ok, name)
		}
		if strings.Trim(topic, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:._-") != "" || len(topic) > 1024 {
			t.Errorf("BoardTopic(%q) = %q: not a live topic name", name, topic)
		}
		topic = QueueTopic(name)
		if queue, ok := ParseQueueTopic(topic); !ok || queue != name {
			t.Errorf("ParseQueueTopic(%q) = %q, %v; want %q", topic, queue, ok, name)
		}
		topic = JobTopic(name, "job 1")
		if queue, id, ok := ParseJobTopic(topic); !ok || queue != name || id != "job 1" {
			t.Errorf("ParseJobTopic(%q) = %q, %q, %v; want %q, job 1", topic, queue, id, ok, name)
		}
		if strings.Trim(topic, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:._-") != "" {
			t.Errorf("JobTopic(%q) = %q: not a live topic name", name, topic)
		}
	}
	if got := BoardTopic("game:2048", AllTime, 10); got != "board.all.10:game:2048" {
		t.Errorf("a plain name stays readable: %q", got)
	}
	if got := QueueTopic("mail jobs"); got != "queuex.bWFpbCBqb2Jz" {
		t.Errorf("QueueTopic(mail jobs) = %q", got)
	}
	// The encoded form is for names the plain form cannot carry: one name, one topic.
	for _, bad := range []string{"queuex.Z2FtZQ", "boardx.all.10:Z2FtZQ", "queue.mail jobs", "queuex.e30", "queuex.!!"} {
		if _, ok := ParseQueueTopic(bad); ok && strings.HasPrefix(bad, "queue") {
			t.Errorf("ParseQueueTopic(%q) accepted", bad)
		}
		if _, _, _, ok := ParseBoardTopic(bad); ok {
			t.Errorf("ParseBoardTopic(%q) accepted", bad)
		}
	}
}

// Numbers in messages are grouped the one way pages group them.
func TestFormatCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", -1234567: "-1,234,567", -MaxSafeScore: "-9,007,199,254,740,991"} {
		if got := FormatCount(n); got != want {
			t.Errorf("FormatCount(%d) = %q, want %q", n, got, want)
		}
	}
}
