package redisrepo

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// countingHook counts round trips, pipelines and single commands, and commands sent in all
// (a script call is one), leaving out the handshake (HELLO, CLIENT SETINFO) that go-redis
// makes on each new connection.
type countingHook struct{ pipelines, single, commands int }

func handshake(cmd redis.Cmder) bool { return cmd.Name() == "hello" || cmd.Name() == "client" }

func (h *countingHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *countingHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !handshake(cmd) {
			h.single++
			h.commands++
		}
		return next(ctx, cmd)
	}
}

func (h *countingHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if !handshake(cmds[0]) {
			h.pipelines++
		}
		for _, cmd := range cmds {
			if !handshake(cmd) {
				h.commands++
			}
		}
		return next(ctx, cmds)
	}
}
