package redisrepo

import (
	"context"
	"errors"
	"slices"

	"github.com/redis/go-redis/v9"
)

// scriptSources maps a script's SHA1 to its source, so exec can resend what Redis forgot.
var scriptSources = map[string]string{}

// newScript declares a Lua script; every script of the package is declared with it.
func newScript(src string) *redis.Script {
	s := redis.NewScript(src)
	scriptSources[s.Hash()] = src
	return s
}

// exec runs a pipeline in one round trip and returns its first failure other than a nil
// reply (redis.Nil is an answer, read from each command). Script calls (EVALSHA) that Redis did not know,
// after a restart, a SCRIPT FLUSH or on a cluster node that has not seen the script, are sent
// once more with their source, each alone: nothing in the pipeline runs twice.
func exec(ctx context.Context, rdb pipeliner, pipe redis.Pipeliner) error {
	cmds, _ := pipe.Exec(ctx)
	var retry redis.Pipeliner // made only when a script was forgotten: most calls need none
	var forgotten, resent []*redis.Cmd
	for _, c := range cmds {
		cmd, ok := c.(*redis.Cmd)
		if !ok || !redis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
			continue
		}
		args := slices.Clone(cmd.Args())
		sha, _ := args[1].(string)
		src, known := scriptSources[sha]
		if !known {
			continue
		}
		args[0], args[1] = "eval", src
		if retry == nil {
			retry = rdb.Pipeline()
		}
		forgotten = append(forgotten, cmd)
		resent = append(resent, retry.Do(ctx, args...))
	}
	if len(forgotten) > 0 {
		_, _ = retry.Exec(ctx)
		for i, cmd := range forgotten {
			cmd.SetVal(resent[i].Val())
			cmd.SetErr(resent[i].Err())
		}
	}
	for _, c := range cmds {
		if err := c.Err(); err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
	}
	return nil
}
