package redisrepo

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// countingHook counts round trips, pipelines and single commands, leaving out the
// handshake (HELLO, CLIENT SETINFO) that go-redis makes on each new connection.
type countingHook struct{ pipelines, single int }

func handshake(cmd redis.Cmder) bool { return cmd.Name() == "hello" || cmd.Name() == "client" }

func (h *countingHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *countingHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !handshake(cmd) {
			h.single++
		}
		return next(ctx, cmd)
	}
}

func (h *countingHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if !handshake(cmds[0]) {
			h.pipelines++
		}
		return next(ctx, cmds)
	}
}
