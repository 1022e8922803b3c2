package redistest

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

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

// HookAfter calls f with every command, alone or pipelined, after Redis answered it:
// rdb.AddHook(HookAfter(f)).
type HookAfter func(redis.Cmder)

// DialHook leaves dials alone.
func (f HookAfter) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook calls f after a single command.
func (f HookAfter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		f(cmd)
		return err
	}
}

// ProcessPipelineHook calls f after each command of a pipeline.
func (f HookAfter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, cmd := range cmds {
			f(cmd)
		}
		return err
	}
}

// AfterScriptCalls calls f once, after the n-th script call (EVALSHA or EVAL) on rdb that
// names key (a lock's acquire attempt, a release...), so a test acts while a waiter is between
// attempts, not after a sleep.
func AfterScriptCalls(rdb *redis.Client, key string, n int, f func()) {
	var calls atomic.Int64
	var once sync.Once
	rdb.AddHook(HookAfter(func(cmd redis.Cmder) {
		if (cmd.Name() == "evalsha" || cmd.Name() == "eval") && slices.Contains(cmd.Args(), any(key)) && calls.Add(1) >= int64(n) {
			once.Do(f)
		}
	}))
}
