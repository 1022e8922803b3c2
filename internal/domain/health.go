package domain

import (
	"fmt"
	"strings"
)

// Readiness states of Redis as zpulse serves it (RedisHealth.Readiness).
const (
	Ready       = "ready"       // every master answers
	Degraded    = "degraded"    // some masters of a Cluster answer, others not: their slots fail
	Unavailable = "unavailable" // no master answers, or which master to ask is unknown
)

// MasterState is one Redis master as a probe found it.
type MasterState struct {
	Addr  string `json:"addr"`
	Up    bool   `json:"up"`
	Slots string `json:"slots,omitempty"` // the slot ranges it serves on a Cluster ("0-5460")
	Error string `json:"error,omitempty"` // why it is down
}

// RedisHealth is every master zpulse writes to, read now: a Cluster's every master, the one
// server, or the master Sentinel names.
type RedisHealth struct {
	Topology string        // "single", "cluster" or "sentinel"
	Masters  []MasterState // sorted by address (a Cluster's by first slot)
	// Unknown says why the masters are not known (no Cluster node answers, no sentinel names
	// the master); "" when they are.
	Unknown string
}

// Down counts the masters that did not answer.
func (h RedisHealth) Down() int {
	n := 0
	for _, m := range h.Masters {
		if !m.Up {
			n++
		}
	}
	return n
}

// Readiness is Ready, Degraded (some masters of several down) or Unavailable (none up, or
// the masters unknown).
func (h RedisHealth) Readiness() string {
	down := h.Down()
	switch {
	case h.Unknown != "" || len(h.Masters) == 0 || down == len(h.Masters):
		return Unavailable
	case down > 0:
		return Degraded
	}
	return Ready
}

// Summary says in a sentence what is down, for the banner and logs: "" when Ready.
func (h RedisHealth) Summary() string {
	switch h.Readiness() {
	case Ready:
		return ""
	case Unavailable:
		if h.Unknown != "" {
			return h.Unknown
		}
		return "no Redis master answers"
	}
	var down []string
	for _, m := range h.Masters {
		if !m.Up {
			if m.Slots != "" {
				down = append(down, m.Addr+" (slots "+m.Slots+")")
			} else {
				down = append(down, m.Addr)
			}
		}
	}
	return fmt.Sprintf("Redis degraded: %d of %d masters down: %s. What lives on their slots cannot be read or changed until a replica takes over.",
		len(down), len(h.Masters), strings.Join(down, "; "))
}

// LiveMode is how live pages learn of changes, as every page's footer and /readyz say it: a
// summary in plain words ("Live: polling every 250 ms") and, apart, the technical reason
// ("" when there is none), which pages show only behind a "Details" toggle.
type LiveMode struct {
	Summary string
	Detail  string
}

// String is the mode on one line, the reason in brackets: what /readyz and logs say.
func (m LiveMode) String() string {
	if m.Detail == "" {
		return m.Summary
	}
	return m.Summary + " (" + m.Detail + ")"
}
