package limiters

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A Flush that returns has written every check recorded before it, even while another flush
// (the periodic one) has taken them and is still writing: the cluster page test once read a
// policy's page between the two and missed a client.
func TestFlushWaitsForAFlushUnderWay(t *testing.T) {
	t.Parallel()
	l, rdb, _ := newTestLimiters(t)
	ctx := context.Background()
	mustAllow(t, l, "default", "c")

	inPipeline, release := make(chan struct{}), make(chan struct{})
	rdb.AddHook(pipelineGate{entered: inPipeline, release: release})
	first := make(chan error, 1)
	go func() { first <- l.Flush(ctx) }() // takes the check, then waits at the gate
	<-inPipeline

	second := make(chan error, 1)
	go func() { second <- l.Flush(ctx) }()
	// The gate opens after a bound, not on the second flush's return: a second flush that
	// returns while the first still holds the check at the gate has not written it.
	go func() { <-time.After(200 * time.Millisecond); close(release) }()
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	if n := rdb.ZCard(ctx, l.Keys.LimiterClients("default")).Val(); n != 1 {
		t.Errorf("Flush returned while the check it follows was unwritten: %d clients listed", n)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
}

// pipelineGate holds the first pipeline sent until release is closed, saying so on entered.
type pipelineGate struct{ entered, release chan struct{} }

func (g pipelineGate) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (g pipelineGate) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (g pipelineGate) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		select {
		case g.entered <- struct{}{}:
			<-g.release
		default:
		}
		return next(ctx, cmds)
	}
}

// A stats field reads back as written; anything else is refused, never counted as rejected.
func TestStatsFieldReadsWhatFlushWrites(t *testing.T) {
	t.Parallel()
	for _, admitted := range []bool{true, false} {
		if sec, a, ok := StatsField(statsField(1_764_000_000, admitted)); !ok || sec != 1_764_000_000 || a != admitted {
			t.Errorf("statsField(…, %v) reads as %d, %v, %v", admitted, sec, a, ok)
		}
	}
	for _, bad := range []string{"", "1764000000", "1764000000:", "1764000000:x", "x:a", ":r"} {
		if _, _, ok := StatsField(bad); ok {
			t.Errorf("StatsField(%q) accepted", bad)
		}
	}
}
