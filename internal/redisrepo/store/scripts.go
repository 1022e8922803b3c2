package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// Script is a Lua script of zpulse. Every script is a documented package-level var declared
// with NewScript (KEYS, ARGV, returns), and Run is the only way to run one: it sends EVALSHA,
// and the source follows when Redis does not know the script (after a restart,
// a SCRIPT FLUSH, or on a Cluster node that has not seen it).
type Script struct {
	src  string
	hash string
}

// scripts is every script declared, by SHA1: Exec resends a forgotten one's source.
var scripts = map[string]*Script{}

// NewScript declares a Lua script.
func NewScript(src string) *Script {
	rs := redis.NewScript(src)
	s := &Script{src: src, hash: rs.Hash()}
	scripts[s.hash] = s
	return s
}

// Scripts returns every script declared so far (the test that lists them reads it).
func Scripts() []*Script {
	return slices.Collect(maps.Values(scripts))
}

// Hash is the script's SHA1, as EVALSHA names it.
func (s *Script) Hash() string { return s.hash }

// Source is the script's Lua source.
func (s *Script) Source() string { return s.src }

// Run runs the script through c. On a pipeline it queues EVALSHA, and Exec (or ExecTyped)
// resends the source if Redis forgot the script; on a client it runs at once, with the source
// sent after a NOSCRIPT.
func (s *Script) Run(ctx context.Context, c redis.Scripter, keys []string, args ...any) *redis.Cmd {
	cmd := c.EvalSha(ctx, s.hash, keys, args...)
	if _, piped := c.(redis.Pipeliner); !piped && redis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
		return c.Eval(ctx, s.src, keys, args...)
	}
	return cmd
}

// Exec runs a pipeline in one round trip and returns its first failure other than a nil
// reply (redis.Nil is an answer, read from each command). Script calls (EVALSHA) that Redis did not know,
// after a restart, a SCRIPT FLUSH or on a cluster node that has not seen the script, are sent
// once more with their source, each alone: nothing in the pipeline runs twice.
func Exec(ctx context.Context, rdb pipeliner, pipe redis.Pipeliner) error {
	return execPipe(ctx, rdb, pipe, false)
}

// ExecTyped is Exec for reads planned beside their key's TYPE (boards.PlanTop,
// queues.PlanQueueSummary):
// a WRONGTYPE reply is an answer there, shown by the decoder as the key's type, so one key
// of another type leaves a list whole rather than failing it.
func ExecTyped(ctx context.Context, rdb pipeliner, pipe redis.Pipeliner) error {
	return execPipe(ctx, rdb, pipe, true)
}

// execPipe is Exec and ExecTyped.
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
		script, known := scripts[sha]
		if !known {
			continue
		}
		args[0], args[1] = "eval", script.src
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

// LuaNow defines nowMs(arg), the one "now" of every script that decides by time, in epoch
// ms: arg when it is a number (an injected clock, OpenOptions.Clock), else Redis TIME, so
// every instance and every service stamps one clock. Calling TIME before a write needs
// effects replication: the default since Redis 5 and the only mode in 7;
// redis.replicate_commands() asks for it on older servers and is a no-op on new ones.
// Scripts compose it into their source (NewScript(LuaNow + ...)).
const LuaNow = `
local function nowMs(arg)
  local now = tonumber(arg)
  if now then return now end
  redis.replicate_commands()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`

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

// LuaTypeGuard is the first step of a script that writes KEYS[1], which should hold want (a
// TYPE name: "zset", "hash", "string") or nothing: a key of another type is refused before
// anything is written, in the same atomic step as the write, with the error reply
// "WRONGTYPE holds:<type> wants:<want>" (ScriptWriteError reads it). So no key of another
// type (a board, a queue, a lock another service keeps there) is ever turned into a
// limiter's, and none is written and then found wrong half-way through a script.
func LuaTypeGuard(want string) string {
	return `
local held = redis.call('TYPE', KEYS[1])['ok']
if held ~= 'none' and held ~= '` + want + `' then return redis.error_reply('WRONGTYPE holds:' .. held .. ' wants:` + want + `') end
`
}

// ScriptWriteError is OpWriteError for a script that writes one key: a refusal of LuaTypeGuard
// (or Redis's own WRONGTYPE) is CodeWrongType naming the key and both types, else as
// OpWriteError.
func ScriptWriteError(op, key string, err error) error {
	if !redis.HasErrorPrefix(err, "WRONGTYPE") {
		return OpWriteError(op, err)
	}
	held, want := "value of another type", "type it keeps"
	for _, f := range strings.Fields(err.Error()) {
		if t, ok := strings.CutPrefix(f, "holds:"); ok {
			held = t
		} else if t, ok := strings.CutPrefix(f, "wants:"); ok {
			want = t
		}
	}
	return fmt.Errorf("%s: %w", op, domain.Errorf(domain.CodeWrongType,
		"the key %q holds a %s, not the %s this limiter counts in: zpulse writes no key of another type, so nothing was counted and the key is unchanged", key, held, want))
}
