package domain

import (
	"strconv"
	"strings"
)

// PayloadChange is one difference between a dead job's payload and the payload an operator
// requeues it with: where (a JSON Pointer, RFC 6901; "" for the payload as a whole), how
// ("added", "removed" or "changed") and the values before and after, as JSON text ("" where
// there is none).
type PayloadChange struct {
	Op   string `json:"op"`
	Path string `json:"path"`
	Old  string `json:"old,omitempty"`
	New  string `json:"new,omitempty"`
}

// PayloadChange ops.
const (
	PayloadAdded   = "added"
	PayloadRemoved = "removed"
	PayloadChanged = "changed"
)

// payloadChangesNamed bounds the changes a summary names; the rest are counted.
const payloadChangesNamed = 6

// SummarizePayloadChanges says which parts of a payload changed, for the job's history and
// the audit trail: paths and ops only, never a value ("/to changed, /cc added, and 3 more"),
// since the history is shown to readers who may not see payloads. "" without changes.
func SummarizePayloadChanges(cs []PayloadChange) string {
	parts := make([]string, 0, min(len(cs), payloadChangesNamed)+1)
	for i, c := range cs {
		if i == payloadChangesNamed {
			parts = append(parts, "and "+strconv.Itoa(len(cs)-i)+" more")
			break
		}
		where := c.Path
		if where == "" {
			where = "the whole payload"
		}
		parts = append(parts, where+" "+c.Op)
	}
	return strings.Join(parts, ", ")
}
