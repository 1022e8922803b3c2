package queues

import (
	"strconv"
	"strings"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// Completed jobs kept for operators (domain.CompletedPolicy): the ack script keeps each acked
// job in the queue's done set with what is known of its run (luaKeepDone); the job's read
// (jobScript), the lists by state (jobPageScript, its "completed" set) and the search read
// them back.

// completedSince is the oldest completion a read still shows, epoch ms, exclusive: what
// completed more than the policy's MaxAge before now is gone, even before an ack trims it.
func completedSince(p domain.CompletedPolicy, now time.Time) int64 {
	return now.UnixMilli() - p.MaxAge.Milliseconds()
}

// completedJob fills j, a job found in the done set at ms with info as luaKeepDone keeps it
// ("<lease-to-ack ms>|<attempts>|<consumer>", a field "" when not known).
func completedJob(j domain.JobDetail, ms float64, info string) domain.JobDetail {
	j.State = domain.JobCompleted
	at := time.UnixMilli(int64(ms)).UTC()
	j.CompletedAt = &at
	took, rest, _ := strings.Cut(info, "|")
	attempts, consumer, _ := strings.Cut(rest, "|")
	if d, err := strconv.ParseFloat(took, 64); err == nil {
		j.DurationMs = new(int64(d))
	}
	j.Attempts, _ = strconv.Atoi(attempts)
	j.Consumer = consumer
	return j
}
