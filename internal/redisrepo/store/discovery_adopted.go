package store

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"
	"github.com/zpulse/zpulse/internal/domain"
)

// Adopted sources: the key patterns of other services' layouts that discovery sweeps beside
// its own kinds (domain.Source).

// refreshAdopted reads the adopted sources (saved in Redis, so every instance sweeps the
// same) and goes on with the sweep of each limiter's and lock prefix's pattern on every
// master, within the same bounds as the kinds above. A pattern no source declares any more
// is dropped, with its step (StepAdopted).
func (d *Discovery) refreshAdopted(ctx context.Context) error {
	d.refreshing.Lock()
	defer d.refreshing.Unlock()
	h, err := d.rdb.HGetAll(ctx, d.sources).Result()
	if err != nil && !IndexOfAnotherType(d.rdb, d.sources, err) {
		return OpError("store.Discovery.refreshAdopted", err)
	} else if err == nil {
		IndexReadOK(d.rdb, d.sources)
	}
	patterns := map[string]bool{}
	watched := map[string]bool{}
	for _, v := range h {
		src, ok := DecodeSource(v, d.families)
		if !ok {
			continue
		}
		if src.ScanPattern() != "" {
			patterns[src.ScanPattern()] = true
		}
		watched[sourcePattern(src)] = true
	}
	d.mu.Lock()
	d.watched = slices.Sorted(maps.Keys(watched))
	for p := range d.adopted {
		if !patterns[p] {
			delete(d.adopted, p)
			delete(d.adoptedStep, p)
		}
	}
	sweeps := []*sweep{d.dated}
	for p := range patterns {
		s := d.adopted[p]
		if s == nil {
			s = newSweep(&sweep{pattern: p})
			d.adopted[p] = s
		}
		sweeps = append(sweeps, s)
	}
	d.mu.Unlock()
	masters := map[string]bool{}
	err = d.eachMaster(ctx, func(ctx context.Context, addr string, node redis.Cmdable) error {
		d.mu.Lock()
		masters[addr] = true
		d.mu.Unlock()
		for _, s := range sweeps {
			if _, err := d.stepSweep(ctx, s, addr, node); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return OpError("store.Discovery.refreshAdopted", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, s := range sweeps {
		s.endPass(masters)
	}
	return nil
}

// AdoptedKeys returns the keys last found for an adopted source's pattern, sorted.
func (d *Discovery) AdoptedKeys(pattern string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.adopted[pattern]
	if s == nil {
		return nil
	}
	keys := maps.Clone(s.found)
	maps.Copy(keys, s.seen)
	return slices.Sorted(maps.Keys(keys))
}

// DecodeSource reads a saved source. One that the rules refuse now (saved by an older
// zpulse, e.g. a limiter at {client}) is not shown, swept or tried: it stays in the hash
// until deleted or saved again.
func DecodeSource(v string, families []domain.KeyFamily) (domain.Source, bool) {
	var s domain.Source
	if json.Unmarshal([]byte(v), &s) != nil || s.Validate(families) != nil {
		return domain.Source{}, false
	}
	return s, true
}

// sourcePattern is the glob of every key an adopted source may name: its scan pattern, or
// (a board, whose key holds a period) its layout up to the first placeholder, then *.
func sourcePattern(s domain.Source) string {
	if p := s.ScanPattern(); p != "" {
		return p
	}
	prefix, _, _ := strings.Cut(s.Key, "{")
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`).Replace(prefix) + "*"
}

// SourcePatterns are the key patterns (Redis globs) of the adopted sources the latest
// refresh read, for the keyspace-notification subscriber.
func (d *Discovery) SourcePatterns() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.watched)
}
