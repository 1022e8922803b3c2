package domain

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// An adopted source attaches zpulse to keys another service created, in that service's own
// layout: the second article's boards at game:rank:<yyyymmdd>, its fixed-window counters at
// limit:api:<client>:<window start>, a queue under any name, locks under any prefix. zpulse
// reads them live like its own, and writes them only where the declared layout says (a
// limiter's "try it" counts against the service's own key for that client and window; boards,
// queues and locks are read only).
type SourceKind string

const (
	SourceBoard   SourceKind = "board"
	SourceQueue   SourceKind = "queue"
	SourceLimiter SourceKind = "limiter"
	SourceLock    SourceKind = "lock"
)

// SourceKinds lists the kinds in the order the form offers them.
var SourceKinds = []SourceKind{SourceBoard, SourceQueue, SourceLimiter, SourceLock}

// Queue score encodings of an adopted queue.
const (
	SourcePriority = "priority" // the main article's priority*1e13 + enqueue ms
	SourceRunAt    = "run_at"   // the main article's delayed queue: run-at epoch ms
)

// Limiter layouts of an adopted limiter.
const (
	// SourceFixedWindow is the second article's fixed window: INCR of
	// <template with {client} and {window_start}>, EXPIRE window; window_start is the
	// window's start in Unix seconds (its example, 1784977500, is a multiple of 60).
	SourceFixedWindow = "fixed_window"
	// SourceSlidingLog is the main article's sliding log: a ZSET per client at the template
	// with {client}, score = request ms, member a random UUID.
	SourceSlidingLog = "sliding_log"
	// SourceTokenBucket is the second article's token bucket: a HASH per client at the
	// template with {client}, holding the tokens and the last refill's time in the fields
	// the service names (TokensField, TimeField), the time in TimeUnit; refilled lazily by
	// RatePerS up to Limit (the capacity).
	SourceTokenBucket = "token_bucket"
)

// Period tokens a board template may hold (one at most): the key of the current period.
var sourcePeriodTokens = map[string]func(time.Time) string{
	"{yyyymmdd}":   func(t time.Time) string { return t.Format("20060102") },
	"{yyyy-mm-dd}": func(t time.Time) string { return t.Format("2006-01-02") },
	"{yyyy-Www}": func(t time.Time) string {
		y, w := t.ISOWeek()
		return strconv.Itoa(y) + "-W" + twoDigits(w)
	},
	"{yyyy-mm}": func(t time.Time) string { return t.Format("2006-01") },
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// Source is one adopted key layout, saved in Redis so every instance shows it.
type Source struct {
	Name string     `json:"name"`
	Kind SourceKind `json:"kind"`
	// Key is the layout: board, a sorted-set key, or a template with one period token
	// ({yyyymmdd}, {yyyy-mm-dd}, {yyyy-Www}, {yyyy-mm}); queue, a sorted-set key; limiter, a
	// template with {client} (and {window_start} for fixed_window); lock, a key prefix.
	Key string `json:"key"`
	// Encoding: board, a TieBreak; queue, "priority" or "run_at"; limiter, "fixed_window" or
	// "sliding_log"; lock, "".
	Encoding string `json:"encoding,omitempty"`
	Limit    int64  `json:"limit,omitempty"`     // limiter: requests per window; a bucket's capacity
	WindowMs int64  `json:"window_ms,omitempty"` // limiter: the service's window (not a bucket's)
	// Zone (a board with a period token) is the IANA time zone the service dates its keys
	// in ("Asia/Shanghai"); "" is UTC.
	Zone string `json:"zone,omitempty"`
	// MaxTS (a first_reached_e10 board) is the service's max_ts; 0 is E10MaxTS.
	MaxTS int64 `json:"max_ts,omitempty"`
	// SortOrder (a board) says which end the service ranks first, for display: "asc" reads
	// the lowest first (ZRANGE); "" or "desc" the highest.
	SortOrder SortOrder `json:"sort_order,omitempty"`
	// A token bucket's hash fields (the tokens, the last refill's time), the time's unit
	// ("ms" or "s") and its refill rate in tokens per second.
	TokensField string  `json:"tokens_field,omitempty"`
	TimeField   string  `json:"time_field,omitempty"`
	TimeUnit    string  `json:"time_unit,omitempty"`
	RatePerS    float64 `json:"rate_per_s,omitempty"`
}

// keyChars are the characters a declared layout may hold besides its tokens: no glob
// characters (a layout names keys, it does not match them) and no spaces.
var keyChars = regexp.MustCompile(`^[A-Za-z0-9:._\-/|@#$%&+=!~^,;<>()]+$`)

// sourceTokens are every token a layout may hold.
var sourceTokens = []string{"{client}", "{window_start}", "{yyyymmdd}", "{yyyy-mm-dd}", "{yyyy-Www}", "{yyyy-mm}"}

// KeyFamily is a key prefix whose keys belong to one kind of thing: zpulse's own keys, or
// the article keys of its boards, queues, locks and limiters (redisrepo.Keys.Families). An
// adopted source's layout may reach into a family only when the family is of its own kind:
// a lock source may read lock:order:*, a limiter never writes a board.
type KeyFamily struct {
	Prefix string     // e.g. "leaderboard:"
	Holds  string     // what its keys are, for people: "zpulse's boards (leaderboard:<name>)"
	Kind   SourceKind // the kind of source that may adopt keys under it; "" for none
}

// Validate checks a source against the key families zpulse knows (families: every key
// prefix zpulse writes). Returns EINVALID.
func (s *Source) Validate(families []KeyFamily) error {
	if err := ValidateName("source", s.Name); err != nil {
		return err
	}
	if len(s.Key) == 0 || len(s.Key) > 200 {
		return FieldErrorf("key", EINVALID, "key must be 1 to 200 characters (got %d)", len(s.Key))
	}
	rest := s.Key
	for _, tok := range sourceTokens {
		rest = strings.Replace(rest, tok, "x", 1)
	}
	if !keyChars.MatchString(withoutHashTag(rest)) {
		return FieldErrorf("key", EINVALID, "key must be a key or template of A-Z a-z 0-9 and punctuation, with no glob characters (* ? [ ]) and no braces but its tokens and one Cluster hash tag ({game}:rank:{yyyymmdd}, limit:api:{{client}}:{window_start}) (got %q)", clip(s.Key))
	}
	if err := s.validateKind(); err != nil {
		return err
	}
	return s.validateReach(families)
}

func (s *Source) validateKind() error {
	tokens := 0
	for tok := range sourcePeriodTokens {
		tokens += strings.Count(s.Key, tok)
	}
	clients, windows := strings.Count(s.Key, "{client}"), strings.Count(s.Key, "{window_start}")
	switch s.Kind {
	case SourceBoard:
		if tokens > 1 || clients+windows > 0 {
			return FieldErrorf("key", EINVALID, "a board's key holds at most one period token ({yyyymmdd}, {yyyy-mm-dd}, {yyyy-Www} or {yyyy-mm}) and no other (got %q)", clip(s.Key))
		}
		if !TieBreak(s.Encoding).Valid() {
			return FieldErrorf("encoding", EINVALID, `a board's encoding must be "none", "first_reached", "first_reached_e10" or "first_reached_wide" (got %q)`, clip(s.Encoding))
		}
		if err := s.validateBoardOptions(tokens > 0); err != nil {
			return err
		}
		if s.SortOrder != "" && !s.SortOrder.Valid() {
			return FieldErrorf("sort_order", EINVALID, `sort_order must be "desc" or "asc" (got %q)`, clip(string(s.SortOrder)))
		}
		if s.SortOrder == SortDesc {
			s.SortOrder = "" // the default, saved as before
		}
		s.Limit, s.WindowMs = 0, 0
		s.clearBucket()
	case SourceQueue:
		if tokens+clients+windows > 0 {
			return FieldErrorf("key", EINVALID, "a queue's key is one sorted-set key, without tokens (got %q)", clip(s.Key))
		}
		if s.Encoding != SourcePriority && s.Encoding != SourceRunAt {
			return FieldErrorf("encoding", EINVALID, `a queue's encoding must be "priority" (priority*1e13+ms) or "run_at" (run-at ms) (got %q)`, clip(s.Encoding))
		}
		s.Limit, s.WindowMs = 0, 0
		s.clearBoard()
		s.clearBucket()
	case SourceLimiter:
		s.clearBoard()
		if s.Encoding == SourceTokenBucket {
			return s.validateBucket(clients, windows+tokens)
		}
		s.clearBucket()
		switch s.Encoding {
		case SourceFixedWindow:
			if clients != 1 || windows != 1 || tokens > 0 {
				return FieldErrorf("key", EINVALID, "a fixed window's key holds {client} and {window_start} once each, e.g. limit:api:{client}:{window_start} (got %q)", clip(s.Key))
			}
			if ci, wi := strings.Index(s.Key, "{client}"), strings.Index(s.Key, "{window_start}"); wi < ci || wi == ci+len("{client}") {
				return FieldErrorf("key", EINVALID, "a fixed window's key holds {client} first, then {window_start}, with at least one character between them (e.g. limit:api:{client}:{window_start}): only so can a key be read back as its client and window (got %q)", clip(s.Key))
			}
			if s.WindowMs%1000 != 0 {
				return FieldErrorf("window_ms", EINVALID, "a fixed window's window_ms must be whole seconds: its key names the window's start in seconds (got %d)", s.WindowMs)
			}
		case SourceSlidingLog:
			if clients != 1 || windows > 0 || tokens > 0 {
				return FieldErrorf("key", EINVALID, "a sliding log's key holds {client} once, e.g. ratelog:{client} (got %q)", clip(s.Key))
			}
		default:
			return FieldErrorf("encoding", EINVALID, `a limiter's encoding must be "fixed_window", "sliding_log" or "token_bucket" (got %q)`, clip(s.Encoding))
		}
		if s.Limit < 1 || s.Limit > MaxLimit {
			return FieldErrorf("limit", EINVALID, "limit must be a whole number of requests from 1 to %d (got %d)", MaxLimit, s.Limit)
		}
		if s.WindowMs < MinWindowMs || s.WindowMs > MaxWindowMs {
			return FieldErrorf("window_ms", EINVALID, "window_ms must be from %d to %d (got %d)", MinWindowMs, MaxWindowMs, s.WindowMs)
		}
		// A layout whose keys do not read back as their client (and window) would refuse every
		// try: refuse it now, with a client and window of the article's example.
		if err := s.ValidateClient("user1001", time.Unix(1784977500, 0)); err != nil {
			return FieldErrorf("key", EINVALID, "the layout %q does not read back: the key it makes for the client user1001 does not parse as that client and window, so every try would be refused; separate {client} from the other parts with a character a client does not hold, e.g. limit:api:{client}:{window_start}", clip(s.Key))
		}
	case SourceLock:
		if tokens+clients+windows > 0 {
			return FieldErrorf("key", EINVALID, "a lock source's key is a prefix, without tokens (got %q)", clip(s.Key))
		}
		s.Encoding, s.Limit, s.WindowMs = "", 0, 0
		s.clearBoard()
		s.clearBucket()
	default:
		return FieldErrorf("kind", EINVALID, `kind must be "board", "queue", "limiter" or "lock" (got %q)`, clip(string(s.Kind)))
	}
	return nil
}

// validateReach refuses a layout that could name a key of another kind's family (a conflict,
// as an overlap with another source is): every key
// the layout names begins with its fixed part, the text before its first token. A layout
// must begin with one (a token first could render any key: {client} = "leaderboard" gives
// leaderboard:<x>). A key without tokens (a board or a queue) is exact and reaches the
// families it begins with; a template or a lock prefix is open, and also reaches every
// family whose prefix begins with its fixed part (l{client} reaches lock:).
func (s *Source) validateReach(families []KeyFamily) error {
	fixed, open := s.Key, s.Kind == SourceLock
	if i := firstToken(s.Key); i >= 0 {
		fixed, open = s.Key[:i], true
	}
	if fixed == "" {
		return FieldErrorf("key", EINVALID, "key must begin with a fixed part, not a token: e.g. limit:api:{client}:{window_start}, game:rank:{yyyymmdd} (got %q)", clip(s.Key))
	}
	for _, f := range families {
		if f.Kind == s.Kind {
			continue
		}
		if strings.HasPrefix(fixed, f.Prefix) || (open && strings.HasPrefix(f.Prefix, fixed)) {
			also := ""
			if open {
				also = ", nor may its fixed part (before the first token; a lock source's whole prefix) be the start of one, which a token or a lock name could complete"
			}
			return FieldErrorf("key", ECONFLICT, "key %q could name %s: a %s source's keys may not begin with %s%s",
				clip(s.Key), f.Holds, s.Kind, reservedPrefixes(families, s.Kind), also)
		}
	}
	return nil
}

// reservedPrefixes lists, for a message, the prefixes a source of kind may not reach.
func reservedPrefixes(families []KeyFamily, kind SourceKind) string {
	var out []string
	for _, f := range families {
		if f.Kind != kind {
			out = append(out, strconv.Quote(f.Prefix))
		}
	}
	return strings.Join(out, ", ")
}

// TieBreak is a board source's encoding.
func (s Source) TieBreak() TieBreak { return TieBreak(s.Encoding) }

// BoardKey is the key of a board source's current period at now (the key itself without a
// token).
func (s Source) BoardKey(now time.Time) string {
	for tok, f := range sourcePeriodTokens {
		if strings.Contains(s.Key, tok) {
			return strings.Replace(s.Key, tok, f(now.In(s.Location())), 1)
		}
	}
	return s.Key
}

// WindowStart is the start, in Unix seconds, of the fixed window holding now.
func (s Source) WindowStart(now time.Time) int64 {
	w := s.WindowMs / 1000
	if w <= 0 {
		return now.Unix()
	}
	return now.Unix() / w * w
}

// ClientKey is a limiter source's key for a client at now: the only keys zpulse writes for it,
// once ValidateClient accepted the client.
func (s Source) ClientKey(client string, now time.Time) string {
	return s.clientKeyAt(client, s.WindowStart(now))
}

// clientKeyAt is a limiter source's key for a client and window start (ignored by a
// template without {window_start}).
func (s Source) clientKeyAt(client string, windowStart int64) string {
	k := strings.Replace(s.Key, "{client}", client, 1)
	return strings.Replace(k, "{window_start}", strconv.FormatInt(windowStart, 10), 1)
}

// ValidateClient checks a client of an adopted limiter before zpulse writes its key: a
// limiter client (ValidateClient) without ":", whose key at now reads back as exactly that
// client (and window), so a client never reaches outside its part of the layout. Returns
// EINVALID.
func (s Source) ValidateClient(client string, now time.Time) error {
	if err := ValidateClient(client); err != nil {
		return err
	}
	if strings.Contains(client, ":") {
		return Errorf(EINVALID, "client may not contain \":\" on an adopted limiter: it fills one part of the key %s (got %q)", s.Key, clip(client))
	}
	key := s.ClientKey(client, now)
	if c, ws, ok := s.ParseClientKey(key); !ok || c != client || (s.Encoding == SourceFixedWindow && ws != s.WindowStart(now)) {
		return Errorf(EINVALID, "client %q would make the key %q, which does not read back as that client in the layout %s: choose a client without the layout's separators", clip(client), clip(key), s.Key)
	}
	return nil
}

// ScanPattern is the SCAN MATCH pattern of the keys a limiter or lock source covers ("" for
// boards and queues, whose keys are known). Glob characters in the fixed parts are escaped.
func (s Source) ScanPattern() string {
	switch s.Kind {
	case SourceLock:
		return globEscape(s.Key) + "*"
	case SourceLimiter:
		p := globEscape(s.Key)
		p = strings.Replace(p, "{client}", "*", 1)
		return strings.Replace(p, "{window_start}", "*", 1)
	}
	return ""
}

func globEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`)
	return r.Replace(s)
}

// ParseClientKey reads a limiter source's key back: its client and, for a fixed window, the
// window start. ok is false for a key outside the layout.
func (s Source) ParseClientKey(key string) (client string, windowStart int64, ok bool) {
	ci := strings.Index(s.Key, "{client}")
	if ci < 0 {
		return "", 0, false
	}
	before, after := s.Key[:ci], s.Key[ci+len("{client}"):]
	if !strings.HasPrefix(key, before) {
		return "", 0, false
	}
	rest := key[len(before):]
	wi := strings.Index(after, "{window_start}")
	if wi < 0 {
		client, ok = strings.CutSuffix(rest, after)
		return client, 0, ok && client != ""
	}
	mid, tail := after[:wi], after[wi+len("{window_start}"):]
	rest, ok = strings.CutSuffix(rest, tail)
	if !ok {
		return "", 0, false
	}
	i := strings.LastIndex(rest, mid)
	if i <= 0 {
		return "", 0, false
	}
	ws, err := strconv.ParseInt(rest[i+len(mid):], 10, 64)
	if err != nil {
		return "", 0, false
	}
	return rest[:i], ws, true
}

// SourceClient is one client of an adopted limiter, as its service's keys hold it.
type SourceClient struct {
	Client string `json:"client"`
	Key    string `json:"key"`
	Count  int64  `json:"count"` // requests counted in the current window; a token bucket: whole tokens left
}

// SourceHeld is one lock under an adopted prefix.
type SourceHeld struct {
	Key   string `json:"key"`
	Value string `json:"value"` // the holder's token as stored ("" for a non-string lock)
	// ValueHidden says Value was withheld: the reader's Audience does not see LockTokens.
	ValueHidden bool  `json:"value_hidden,omitempty"`
	TTLMs       int64 `json:"ttl_ms"`
}

// SourceView is what an adopted source shows, read live.
type SourceView struct {
	Source  Source         `json:"source"`
	Key     string         `json:"key,omitempty"` // the key read (boards: the current period's; queues)
	Entries []Entry        `json:"entries,omitempty"`
	Count   int64          `json:"count"` // players, waiting jobs, clients or locks
	Jobs    []QueueJob     `json:"jobs,omitempty"`
	Clients []SourceClient `json:"clients,omitempty"`
	Locks   []SourceHeld   `json:"locks,omitempty"`
}

// SourceSuggestion is a layout discovery found keys of that no source declares: "found
// game:rank:20261201 and 40 keys like it".
type SourceSuggestion struct {
	Key     string `json:"key"`     // the layout, e.g. game:rank:{yyyymmdd}
	Example string `json:"example"` // the newest key found, e.g. game:rank:20261201
	Keys    int    `json:"keys"`    // how many keys of the layout were found
}

// SourceShown bounds the entries, jobs, clients and locks a source view shows.
const SourceShown = 20

// SourceService keeps the adopted sources and reads them.
type SourceService interface {
	// Sources lists the adopted sources, by name. Returns EUNAVAILABLE.
	Sources(ctx context.Context) ([]Source, error)
	// SaveSource validates and saves a source (replacing one of the same name).
	// Returns EINVALID, EUNAVAILABLE.
	SaveSource(ctx context.Context, s Source) (Source, error)
	// DeleteSource forgets a source; its keys are untouched. Returns ENOTFOUND, EUNAVAILABLE.
	DeleteSource(ctx context.Context, name string) error
	// SourceView reads a source live. Returns ENOTFOUND, EUNAVAILABLE.
	SourceView(ctx context.Context, name string) (SourceView, error)
	// SourceViews reads every source of kinds (every source when none is named) live, in one
	// round trip, for the lists and the overview. Returns EUNAVAILABLE.
	SourceViews(ctx context.Context, kinds ...SourceKind) ([]SourceView, error)
	// TrySource counts one request of client against an adopted limiter, on the service's own
	// key for that client (and window), with the service's algorithm. A key of another type
	// is left as it is. Returns EINVALID (not a limiter, bad client), CodeWrongType,
	// ENOTFOUND, EUNAVAILABLE.
	TrySource(ctx context.Context, name, client string) (LimitResult, error)
	// SourceEntries pages an adopted board's current key as LeaderboardService.Entries pages a
	// board (1 ≤ limit ≤ MaxPageLimit, after a NextCursor or ""). Returns EINVALID (not a
	// board, a bad limit or cursor), ENOTFOUND, CodeWrongType, EUNAVAILABLE.
	SourceEntries(ctx context.Context, name, after string, limit int) (Page, error)
	// SourceEntriesAt is the page of an adopted board that starts at rank (1 ≤ rank ≤
	// MaxRank), as LeaderboardService.EntriesAt reads a board. Returns as SourceEntries.
	SourceEntriesAt(ctx context.Context, name string, rank int64, limit int) (Page, error)
	// SourcePlayer is a player's rank and score on an adopted board's current key.
	// Returns EINVALID, ENOTFOUND (no such source or player), CodeWrongType, EUNAVAILABLE.
	SourcePlayer(ctx context.Context, name, player string) (Entry, error)
	// SourceAround is the n (1 ≤ n ≤ MaxAround) players above and below one on an adopted
	// board. Returns as SourcePlayer.
	SourceAround(ctx context.Context, name, player string, n int) ([]Entry, error)
	// SourceSuggestions are the dated layouts discovery's last sweeps found sorted sets of and
	// no source declares (read from its snapshot: no SCAN of its own). Returns EUNAVAILABLE.
	SourceSuggestions(ctx context.Context) ([]SourceSuggestion, error)
}
