package store

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// ScriptSources maps a script's SHA1 to its source, so exec can resend what Redis forgot.
var ScriptSources = map[string]string{}

// NewScript declares a Lua script; every script of the package is declared with it.
func NewScript(src string) *redis.Script {
	s := redis.NewScript(src)
	ScriptSources[s.Hash()] = src
	return s
}

// Exec runs a pipeline in one round trip and returns its first failure other than a nil
// reply (redis.Nil is an answer, read from each command). Script calls (EVALSHA) that Redis did not know,
// after a restart, a SCRIPT FLUSH or on a cluster node that has not seen the script, are sent
// once more with their source, each alone: nothing in the pipeline runs twice.
func Exec(ctx context.Context, rdb pipeliner, pipe redis.Pipeliner) error {
	return execPipe(ctx, rdb, pipe, false)
}

// ExecTyped is exec for reads planned beside their key's TYPE (planTop, planQueueSummary):
// a WRONGTYPE reply is an answer there, shown by the decoder as the key's type, so one key
// of another type leaves a list whole rather than failing it.
func ExecTyped(ctx context.Context, rdb pipeliner, pipe redis.Pipeliner) error {
	return execPipe(ctx, rdb, pipe, true)
}

// execPipe is exec and execTyped.
func execPipe(ctx context.Context, rdb pipeliner, pipe redis.Pipeliner, typed bool) error {
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
		src, known := ScriptSources[sha]
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
		if err := c.Err(); err != nil && !errors.Is(err, redis.Nil) && !(typed && WrongType(err) != nil) {
			return err
		}
	}
	return nil
}

// LuaSortedSetGuard starts every script whose KEYS[1] is a board's or a queue's sorted set:
// when another service keeps another type there (a LIST at queue:rq), the script answers
// with a wrongTypeReply error before it reads or writes anything, and wrap turns that into
// domain.CodeWrongType naming the key and its type.
const LuaSortedSetGuard = `
do
  local t = redis.call('TYPE', KEYS[1])['ok']
  if t ~= 'zset' and t ~= 'none' then
    return redis.error_reply('WRONGTYPE want=zset type=' .. t .. ' key=' .. KEYS[1])
  end
end
`

// WrongType turns a WRONGTYPE error reply into domain.CodeWrongType: a guard's
// (luaSortedSetGuard: "WRONGTYPE want=<type> type=<type> key=<key>") names the key and its
// type; Redis's own ("WRONGTYPE Operation against a key holding the wrong kind of value", a
// command that met a key of another type) only says so. Returns nil for any other error.
func WrongType(err error) error {
	if !redis.HasErrorPrefix(err, "WRONGTYPE") {
		return nil
	}
	msg := strings.TrimPrefix(err.Error(), "WRONGTYPE ")
	if rest, ok := strings.CutPrefix(msg, "want="); ok {
		want, rest, ok1 := strings.Cut(rest, " type=")
		typ, key, ok2 := strings.Cut(rest, " key=")
		if ok1 && ok2 {
			return domain.WrongTypeError(key, typ, want)
		}
	}
	return domain.Errorf(domain.CodeWrongType, "a key of this call holds another Redis type than the call works on (another service's data)")
}
