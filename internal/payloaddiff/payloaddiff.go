// Package payloaddiff says what an edit changed in a job's JSON payload, path by path, with
// github.com/wI2L/jsondiff (an RFC 6902 patch from the old document to the new one).
package payloaddiff

import (
	"bytes"
	"encoding/json"

	"github.com/wI2L/jsondiff"

	"github.com/zpulse/zpulse/internal/domain"
)

// Compare lists what changed from old to new, members by name and elements by index: a member or element added,
// removed or given another value. An empty payload is none; a payload added or removed as a
// whole, or one that is not JSON (another service's), is one change at path "".
func Compare(old, new []byte) []domain.PayloadChange {
	switch {
	case len(old) == 0 && len(new) == 0:
		return nil
	case len(old) == 0:
		return []domain.PayloadChange{{Op: domain.PayloadAdded, New: string(new)}}
	case len(new) == 0:
		return []domain.PayloadChange{{Op: domain.PayloadRemoved, Old: string(old)}}
	}
	patch, err := jsondiff.CompareJSON(old, new, jsondiff.UnmarshalFunc(decodeExact))
	if err != nil { // not JSON on one side: compared as text
		if bytes.Equal(old, new) {
			return nil
		}
		return []domain.PayloadChange{{Op: domain.PayloadChanged, Old: string(old), New: string(new)}}
	}
	changes := make([]domain.PayloadChange, 0, len(patch))
	for _, op := range patch {
		c := domain.PayloadChange{Path: op.Path}
		switch op.Type {
		case jsondiff.OperationAdd:
			c.Op, c.New = domain.PayloadAdded, text(op.Value)
		case jsondiff.OperationRemove:
			c.Op, c.Old = domain.PayloadRemoved, text(op.OldValue)
		default: // replace (the only other operation without Factorize)
			c.Op, c.Old, c.New = domain.PayloadChanged, text(op.OldValue), text(op.Value)
		}
		changes = append(changes, c)
	}
	return changes
}

// decodeExact decodes numbers as json.Number, so an id of 20 digits shows as it was written.
func decodeExact(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// text is a decoded JSON value written back as compact JSON.
func text(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
