package queues

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// BenchmarkLeaseAck is one lease and its ack on one client, by what an ack keeps of a
// completed job: nothing (keep 0: the ack as it was before completed jobs were kept), the
// default (1,000 a queue, a day, no payloads: the record full, so each ack also trims one),
// and with payloads. bench/report's "queue lease+ack, 50 clients" is the figure beside
// asynq's server; this one isolates the ack script's own cost.
func BenchmarkLeaseAck(b *testing.B) {
	for _, c := range []struct {
		name string
		p    domain.CompletedPolicy
	}{
		{"keep-none", domain.CompletedPolicy{Keep: 0, MaxAge: time.Hour}},
		{"keep-default", domain.DefaultCompletedPolicy},
		{"keep-payloads", domain.CompletedPolicy{Keep: domain.DefaultCompletedKeep, MaxAge: domain.DefaultCompletedMaxAge, Payloads: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			rdb := redistest.DB(b)
			q, _ := openQueues(b, rdb, nil, 4) // Redis TIME, as in production
			q.completed = c.p
			ctx := context.Background()
			payload := []byte(`{"to":"ann@example.com","template":"welcome"}`)
			for i := range b.N + domain.DefaultCompletedKeep {
				job := prio(1)
				job.ID, job.Payload = "j"+strconv.Itoa(i), payload
				if _, err := q.Enqueue(ctx, "bench", job); err != nil {
					b.Fatal(err)
				}
			}
			lease := func() {
				d, ok, err := q.Poll(ctx, "bench", domain.PollOptions{Lease: time.Minute, Consumer: "w1"})
				if err != nil || !ok {
					b.Fatalf("poll: %v %v", ok, err)
				}
				if err := q.Ack(ctx, "bench", d.ID, d.Token); err != nil {
					b.Fatal(err)
				}
			}
			for range domain.DefaultCompletedKeep { // fill the record: each ack in the loop trims one
				lease()
			}
			b.ResetTimer()
			for range b.N {
				lease()
			}
		})
	}
}
