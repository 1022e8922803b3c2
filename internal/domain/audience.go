package domain

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// Secrets is a set of the kinds of value zpulse shows only to an audience allowed to see them.
type Secrets uint8

const (
	// LockTokens are lock holders' tokens: a token releases its lock.
	LockTokens Secrets = 1 << iota
	// JobPayloads are what services put in their jobs.
	JobPayloads
	// ClientIDs are limiters' clients: API keys, users, addresses.
	ClientIDs

	AllSecrets = LockTokens | JobPayloads | ClientIDs
)

// Audience is who a page, an API answer, an export or a live fragment is for, as far as
// secrets go: the one place that decides what a reader sees. Every handler and the live path
// pass what they show through it. The zero Audience sees no secret.
type Audience struct {
	sees     Secrets
	labelKey string // keys the labels that stand for the client ids it may not see
}

// Admin is the audience that sees every secret: an admin, or anyone when no admin token is
// configured.
var Admin = Audience{sees: AllSecrets}

// Viewer is the audience of a viewer or an operator: job payloads and limiter client ids (a
// named teammate sees them), never a lock holder's token, which would release the lock.
var Viewer = Audience{sees: JobPayloads | ClientIDs}

// AudienceOf is what a role sees of secrets: every secret for an admin, Viewer's for a
// viewer or an operator, anonymous's (what --show-to-anonymous shows) for RoleNone.
func AudienceOf(r Role, anonymous Audience) Audience {
	switch {
	case r.Allows(RoleAdmin):
		return Admin
	case r.Allows(RoleViewer):
		return Viewer
	}
	return anonymous
}

// Anonymous is the audience of readers who are not admins while an admin token is configured:
// it sees the secrets of shown (lock tokens never). Client ids it may not see are shown as
// labels keyed by adminToken, the same on every instance and unguessable without the token.
func Anonymous(shown Secrets, adminToken string) Audience {
	key := sha256.Sum256([]byte("zpulse-client-label:" + adminToken))
	return Audience{sees: shown &^ LockTokens, labelKey: string(key[:])}
}

// Sees says whether the audience sees every secret of s.
func (a Audience) Sees(s Secrets) bool { return a.sees&s == s }

// Lock is l as the audience sees it: without the holder's token unless it sees LockTokens.
func (a Audience) Lock(l LockInfo) LockInfo {
	if !a.Sees(LockTokens) && l.Token != "" {
		l.Token, l.TokenHidden = "", true
	}
	return l
}

// Locks is h as the audience sees it (see Lock).
func (a Audience) Locks(h HeldLocks) HeldLocks {
	if a.Sees(LockTokens) {
		return h
	}
	locks := make([]LockInfo, len(h.Locks))
	for i, l := range h.Locks {
		locks[i] = a.Lock(l)
	}
	h.Locks = locks
	return h
}

// Job is j as the audience sees it: without its payload unless it sees JobPayloads.
func (a Audience) Job(j JobDetail) JobDetail {
	if !a.Sees(JobPayloads) && len(j.Payload) > 0 {
		j.Payload, j.PayloadHidden = nil, true
	}
	return j
}

// JobSearch is p as the audience sees it: without payload excerpts unless it sees
// JobPayloads.
func (a Audience) JobSearch(p JobSearchPage) JobSearchPage {
	if a.Sees(JobPayloads) {
		return p
	}
	jobs := make([]JobMatch, len(p.Jobs))
	for i, j := range p.Jobs {
		j.Excerpt = nil
		jobs[i] = j
	}
	p.Jobs = jobs
	return p
}

// Client is a limiter client's id as the audience sees it: the id, or a label that tells
// clients apart without naming them ("client #3f2a9c1b0d4e").
func (a Audience) Client(id string) string {
	if a.Sees(ClientIDs) {
		return id
	}
	mac := hmac.New(sha256.New, []byte(a.labelKey))
	mac.Write([]byte(id))
	return "client #" + hex.EncodeToString(mac.Sum(nil)[:6])
}

// Limiter is v as the audience sees it: its clients named by Client.
func (a Audience) Limiter(v LimiterView) LimiterView {
	if a.Sees(ClientIDs) {
		return v
	}
	clients := make([]ClientUsage, len(v.Clients))
	for i, u := range v.Clients {
		u.Client = a.Client(u.Client)
		clients[i] = u
	}
	v.Clients = clients
	return v
}

// Limiters is vs as the audience sees them (see Limiter).
func (a Audience) Limiters(vs []LimiterView) []LimiterView {
	if a.Sees(ClientIDs) {
		return vs
	}
	out := make([]LimiterView, len(vs))
	for i, v := range vs {
		out[i] = a.Limiter(v)
	}
	return out
}

// Source is v as the audience sees it: an adopted limiter's clients named by Client (in their
// keys too), an adopted lock's holder withheld unless it sees LockTokens.
func (a Audience) Source(v SourceView) SourceView {
	if !a.Sees(ClientIDs) && len(v.Clients) > 0 {
		clients := make([]SourceClient, len(v.Clients))
		for i, c := range v.Clients {
			if id, ws, ok := v.Source.ParseClientKey(c.Key); ok {
				c.Key = v.Source.clientKeyAt(a.Client(id), ws)
			} else {
				c.Key = ""
			}
			c.Client = a.Client(c.Client)
			clients[i] = c
		}
		v.Clients = clients
	}
	if !a.Sees(LockTokens) && len(v.Locks) > 0 {
		locks := make([]SourceHeld, len(v.Locks))
		for i, l := range v.Locks {
			if l.Value != "" {
				l.Value, l.ValueHidden = "", true
			}
			locks[i] = l
		}
		v.Locks = locks
	}
	return v
}

// secretNames are the names of the secrets an operator may show to anonymous readers
// (--show-to-anonymous); lock tokens are not among them.
var secretNames = []struct {
	name   string
	secret Secrets
}{{"payloads", JobPayloads}, {"client-ids", ClientIDs}}

// UnmarshalText reads the secrets an operator shows anonymous readers: a comma-separated list
// of payloads and client-ids ("" is none). Returns EINVALID for any other name.
func (s *Secrets) UnmarshalText(text []byte) error {
	var set Secrets
	for _, name := range strings.Split(string(text), ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		var bit Secrets
		for _, n := range secretNames {
			if n.name == name {
				bit = n.secret
			}
		}
		if bit == 0 {
			return Errorf(EINVALID, "%s is not a secret that may be shown to anonymous readers: name payloads, client-ids or both, comma-separated (lock tokens are never shown)", strconv.Quote(clip(name)))
		}
		set |= bit
	}
	*s = set
	return nil
}

// MarshalText is s as UnmarshalText reads it (lock tokens are not named: never shown).
func (s Secrets) MarshalText() ([]byte, error) {
	var names []string
	for _, n := range secretNames {
		if s&n.secret != 0 {
			names = append(names, n.name)
		}
	}
	return []byte(strings.Join(names, ",")), nil
}

// Consumers is a queue's consumers as the audience sees them: those known only by their
// client address (no name of their own) read HiddenAddress unless it sees ClientIDs.
func (a Audience) Consumers(cs []Consumer) []Consumer {
	if a.Sees(ClientIDs) || cs == nil {
		return cs
	}
	out := make([]Consumer, len(cs))
	for i, c := range cs {
		if c.Address {
			c.Name = HiddenAddress
		}
		out[i] = c
	}
	return out
}

// Queue is v as the audience sees it (see Consumers).
func (a Audience) Queue(v QueueView) QueueView {
	v.Consumers = a.Consumers(v.Consumers)
	return v
}
