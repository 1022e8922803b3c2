package redisrepo

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// settingsTTL is how long an instance uses board settings it read before reading them again:
// a change made through another instance applies here within this time. (A write with stale
// settings still keeps points exact: a plain ZINCRBY on a tie-break score keeps its integer
// part right; only the time stamp or a period board may lag for that long.)
const settingsTTL = time.Second

// settingsCache reads board settings from Redis (the HASH Keys.BoardSettings) and keeps them
// for settingsTTL, so adds do not pay a round trip for them.
type settingsCache struct {
	rdb   redis.UniversalClient
	keys  Keys
	clock domain.Clock

	mu      sync.Mutex
	entries map[string]cachedSettings
}

type cachedSettings struct {
	settings domain.BoardSettings
	read     time.Time
}

func newSettingsCache(rdb redis.UniversalClient, keys Keys, clock domain.Clock) *settingsCache {
	return &settingsCache{rdb: rdb, keys: keys, clock: clock, entries: map[string]cachedSettings{}}
}

func (c *settingsCache) get(ctx context.Context, board string) (domain.BoardSettings, error) {
	now := c.clock.Now()
	c.mu.Lock()
	e, ok := c.entries[board]
	c.mu.Unlock()
	if ok && now.Sub(e.read) < settingsTTL && now.Sub(e.read) >= 0 {
		return e.settings, nil
	}
	h, err := c.rdb.HGetAll(ctx, c.keys.BoardSettings(board)).Result()
	if err != nil {
		return domain.BoardSettings{}, wrap(err)
	}
	s := decodeSettings(h)
	c.remember(board, s, now)
	return s, nil
}

func (c *settingsCache) put(ctx context.Context, board string, s domain.BoardSettings) error {
	periods := make([]string, len(s.Periods))
	for i, p := range s.Periods {
		periods[i] = string(p)
	}
	err := c.rdb.HSet(ctx, c.keys.BoardSettings(board),
		"tie_break", string(s.TieBreak), "periods", strings.Join(periods, ","), "retention_days", s.RetentionDays).Err()
	if err != nil {
		return wrap(err)
	}
	c.remember(board, s, c.clock.Now())
	return nil
}

func (c *settingsCache) remember(board string, s domain.BoardSettings, at time.Time) {
	c.mu.Lock()
	c.entries[board] = cachedSettings{settings: s, read: at}
	c.mu.Unlock()
}

// decodeSettings reads the settings HASH; missing or damaged fields take their defaults, so a
// hand-edited hash never stops a board from working.
func decodeSettings(h map[string]string) domain.BoardSettings {
	s := domain.DefaultBoardSettings()
	if h["tie_break"] == string(domain.TieBreakFirstReached) {
		s.TieBreak = domain.TieBreakFirstReached
	}
	for _, name := range strings.Split(h["periods"], ",") {
		if p, err := domain.ParsePeriod(name); err == nil && p != domain.AllTime && !s.Keeps(p) {
			s.Periods = append(s.Periods, p)
		}
	}
	if d, err := strconv.Atoi(h["retention_days"]); err == nil {
		s.RetentionDays = d
	}
	if s.Validate() != nil {
		s.RetentionDays = domain.DefaultRetentionDays
		_ = s.Validate()
	}
	return s
}
