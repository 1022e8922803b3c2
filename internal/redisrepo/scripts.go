package redisrepo

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// runPipelined runs script s by its SHA together with the commands that also queues, in one
// round trip. When Redis does not know the script (after a restart or SCRIPT FLUSH) it sends
// the whole script once more. The commands queued by also must be idempotent: they run twice then.
func runPipelined(ctx context.Context, rdb redis.UniversalClient, s *redis.Script, keys []string, args []any, also func(redis.Pipeliner)) (*redis.Cmd, error) {
	run := func(eval func(context.Context, redis.Scripter, []string, ...any) *redis.Cmd) (*redis.Cmd, error) {
		pipe := rdb.Pipeline()
		cmd := eval(ctx, pipe, keys, args...)
		also(pipe)
		_, err := pipe.Exec(ctx)
		return cmd, err
	}
	cmd, err := run(s.EvalSha)
	if redis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
		cmd, err = run(s.Eval)
	}
	return cmd, err
}
