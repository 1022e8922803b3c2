package redistest

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// CountingHook counts round trips, pipelines and single commands, and commands sent in all (a
// script call is one), leaving out the handshake (HELLO, CLIENT SETINFO) that go-redis makes on
// each new connection: rdb.AddHook(&CountingHook{}).
type CountingHook struct{ Pipelines, Single, Commands int }

func handshake(cmd redis.Cmder) bool { return cmd.Name() == "hello" || cmd.Name() == "client" }

// DialHook leaves dials alone.
func (h *CountingHook) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook counts a single command.
func (h *CountingHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !handshake(cmd) {
			h.Single++
			h.Commands++
		}
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook counts a pipeline and its commands.
func (h *CountingHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if !handshake(cmds[0]) {
			h.Pipelines++
		}
		for _, cmd := range cmds {
			if !handshake(cmd) {
				h.Commands++
			}
		}
		return next(ctx, cmds)
	}
}
