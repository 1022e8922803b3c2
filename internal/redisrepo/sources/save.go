package sources

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// saveSourceScript saves an adopted source only if the saved sources are still those the
// caller read: the overlap check (domain.Source.CheckOverlaps) runs in Go on that read, and
// this compare-and-set makes check and write one atomic step, so two instances saving two
// overlapping sources at once cannot both succeed.
//
// KEYS[1]  the sources HASH (Keys.Sources)
// Refuses  a key of another type, before writing (typeGuard)
// ARGV[1]  the source's name
// ARGV[2]  its JSON
// ARGV[3]  how many fields the HASH held when read
// ARGV[4…] the fields and values read, in pairs
// Returns  1 saved, 0 the HASH changed since the read (nothing written)
var saveSourceScript = store.NewScript(store.LuaTypeGuard("hash") + `
if redis.call('HLEN', KEYS[1]) ~= tonumber(ARGV[3]) then return 0 end
for i = 4, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) ~= ARGV[i + 1] then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`)

// saveAttempts bounds the reads a save makes while other saves keep changing the sources.
const saveAttempts = 8

func (s *Sources) SaveSource(ctx context.Context, src domain.Source) (domain.Source, error) {
	families := s.keys.Families()
	if err := src.Validate(families); err != nil {
		return domain.Source{}, err
	}
	b, _ := json.Marshal(src)
	key := s.keys.Sources()
	for range saveAttempts {
		h, err := s.rdb.HGetAll(ctx, key).Result()
		if err != nil {
			return domain.Source{}, store.OpError("sources.Sources.SaveSource", err)
		}
		args := make([]any, 0, 3+2*len(h))
		args = append(args, src.Name, b, len(h))
		saved := make([]domain.Source, 0, len(h))
		for f, v := range h {
			args = append(args, f, v)
			if o, ok := store.DecodeSource(v, families); ok {
				saved = append(saved, o)
			}
		}
		if err := src.CheckOverlaps(saved); err != nil {
			return domain.Source{}, err
		}
		done, err := saveSourceScript.Run(ctx, s.rdb, []string{key}, args...).Int()
		if err != nil {
			return domain.Source{}, store.OpWriteError("sources.Sources.SaveSource", err)
		}
		if done == 1 {
			s.cache.Forget("")
			return src, nil
		}
	}
	return domain.Source{}, fmt.Errorf("sources.Sources.SaveSource: %w", domain.Errorf(domain.ECONFLICT,
		"the adopted sources changed %d times while source %q was checked against them: nothing was saved, try again", saveAttempts, src.Name))
}
