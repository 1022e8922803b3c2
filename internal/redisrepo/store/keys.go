package store

import (
	"strconv"
	"strings"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// Keys builds every Redis key zpulse reads or writes; nothing else in zpulse spells a key.
// The defaults are the reference articles' names, so a service written from the articles and
// zpulse share data on one Redis; what only zpulse needs lives under OwnPrefix.
type Keys struct {
	// LeaderboardPrefix precedes a board's name: "leaderboard:" gives leaderboard:game:2048.
	LeaderboardPrefix string
	// OwnPrefix precedes zpulse's own keys: indexes, settings, unique-player counts, limiter
	// policies and history.
	OwnPrefix string
	// LockPrefix precedes a lock's name: "lock:" gives lock:order:1001, the article's key.
	LockPrefix string
	// RatePrefix precedes every limiter's per-client state: "rate:" gives the articles'
	// rate:c-42.
	RatePrefix string
	// QueuePrefix precedes a queue's name: "queue:" gives queue:email-jobs, the article's key.
	QueuePrefix string
}

// DefaultKeys are the articles' key names.
var DefaultKeys = Keys{LeaderboardPrefix: "leaderboard:", OwnPrefix: "zpulse:", LockPrefix: "lock:", RatePrefix: "rate:", QueuePrefix: "queue:"}

// Display names the keys for people, as pages show them.
func (k Keys) Display() domain.KeyDisplay {
	return domain.KeyDisplay{Boards: k.Leaderboard("*"), Queues: k.Queue("*"), Lock: k.Lock("<name>"),
		LockExample: k.Lock("order:1001"), RateDefault: k.LimiterState(domain.DefaultPolicy, "<client>"),
		InternalLocks: k.OwnPrefix}
}

// Leaderboard is the ZSET of a board: member = player id, score = points.
func (k Keys) Leaderboard(board string) string { return k.LeaderboardPrefix + board }

// PeriodBoard is the ZSET of a board's period that contains t, e.g.
// leaderboard:game:2048:2026-11-29, leaderboard:game:2048:2026-W48, leaderboard:game:2048:2026-11.
// For AllTime it is the board itself.
func (k Keys) PeriodBoard(board string, p domain.Period, t time.Time) string {
	if p == domain.AllTime {
		return k.Leaderboard(board)
	}
	return k.Leaderboard(board) + ":" + p.Suffix(t)
}

// BoardKeys names every key of a board a reset deletes: the board, each period board that can
// still exist at now, its settings and the unique-player counts that can still exist. They
// are named exactly, never found by a glob over the board's name: a user chose it, and board
// x's glob would match board x:y's keys.
//
// Period boards are named from the retention window, not from a record of what was written:
// a period key expires at the end of its period plus the board's retention (at most
// MaxRetentionDays), so every one that can exist is a day, week or month that ended up to
// MaxRetentionDays ago, the current one or the next (for clocks a little ahead). Every period
// is named, not only those the settings keep now: a period turned off, or a retention made
// shorter, leaves keys that live until their own expiry. That is about 4,300 DELs (ten years
// of days, weeks and months), mostly of keys that do not exist, in one pipelined round trip
// once per reset (about 7 ms on a local Redis), and nothing on the write path (a SET of the
// period keys written would cost every write a command). A period board a foreign service
// wrote without expiry, older than that window, is not found. A day's unique-player count
// lives uniqueTTL after the day, a minute's count of writes boardAddsTTL.
func (k Keys) BoardKeys(board string, now time.Time) []string {
	keys := []string{k.Leaderboard(board), k.BoardSettings(board), k.LegacyBoardSettings(board)}
	seen := map[string]bool{}
	first := now.AddDate(0, 0, -domain.MaxRetentionDays-31) // a month that ended then began up to 31 days before
	for t := first; !t.After(now.Add(24 * time.Hour)); t = t.Add(24 * time.Hour) {
		for _, p := range domain.Periods {
			if key := k.PeriodBoard(board, p, t); !seen[key] {
				seen[key] = true
				keys = append(keys, key)
			}
		}
	}
	for day := -2; day <= 1; day++ {
		keys = append(keys, k.BoardUnique(board, now.AddDate(0, 0, day)))
	}
	// The minutes' counts of writes that can still exist (boardAddsTTL, 10 minutes); the
	// history rings stay: they tell what happened before the reset.
	for m := -11; m <= 1; m++ {
		keys = append(keys, k.BoardAdds(board, now.Add(time.Duration(m)*time.Minute)))
	}
	return keys
}

// A board's seasons live beside its all-time board in that key's Cluster slot: the braces
// hold the board's whole key, as {queue:x}:… does for a queue, so {leaderboard:x}:season:3
// hashes like leaderboard:x and ending a season RENAMEs one into the other in one script.
// A name holds no braces, so the board's name ends exactly at the "}", and the leading "{"
// keeps these keys out of SCAN MATCH leaderboard:* (a season is never found as a board) and
// apart from every other key (zpulse's own start with OwnPrefix, the articles' with their
// prefixes, the other braced ones with {queue: or {lock:).
func (k Keys) seasonTag(board string) string { return "{" + k.Leaderboard(board) + "}" }

// SeasonBoard is the ZSET of a board's ended season n (1, 2, …): the all-time board as it
// stood when the season ended.
func (k Keys) SeasonBoard(board string, n int64) string {
	return k.seasonTag(board) + ":season:" + strconv.FormatInt(n, 10)
}

// Seasons is the HASH of a board's seasons: "current" -> the current season's number,
// "started" -> when it began (epoch ms), "dropped" -> seasons retention deleted, and per
// ended season n "<n>:started", "<n>:ended" (epoch ms), "<n>:ties" (its encoding).
func (k Keys) Seasons(board string) string { return k.seasonTag(board) + ":seasons" }

// ScoreRewrite is the HASH that marks an encoding rewrite of one board key (the all-time
// board or a period board, given as its key): from, to, state ("running", then "done" for a
// while), and during the run "m:<player>" for each player whose score is already in the new
// encoding. Its braces hold the board key, so it shares the key's Cluster slot and every
// score script reads it in the same step as the score ({leaderboard:<board>}:rewrite is also
// the seasons' slot).
func (k Keys) ScoreRewrite(boardKey string) string { return "{" + boardKey + "}:rewrite" }

// SeasonRolloverFailures is the HASH board → "<when>: <error>" of the boards whose scheduled
// season end failed at the season rollover's last round (the others' fields are deleted):
// the board's page and the overview show it.
func (k Keys) SeasonRolloverFailures() string { return k.OwnPrefix + "season-rollover:failures" }

// BoardHistory is the STREAM of the changes zpulse made to players' scores on a board (add,
// set, remove), in the board's Cluster slot (the season tag), so the script that changes a
// score appends its entry: fields p (player), d (points added; for a set, the points set),
// s (the all-time score after it, as stored), e (the board's encoding then), a (actor),
// k (add, set or remove), t (epoch ms, the scripts' clock). Capped with XADD MAXLEN ~
// (--score-history).
func (k Keys) BoardHistory(board string) string { return k.seasonTag(board) + ":history" }

// BoardIndex is the SET of board names zpulse has written to.
func (k Keys) BoardIndex() string { return k.OwnPrefix + "index:boards" }

// A board's own keys carry its name in braces, which a name cannot contain, so the name ends
// exactly at the "}": board x's keys and board x:unique:y's never meet. The braces also put
// a board's own keys in one Cluster slot.
func (k Keys) boardTag(board string) string { return k.OwnPrefix + "board:{" + board + "}" }

// BoardSettings is the HASH of a board's settings: ties (the encoding; legacy tie_break), periods, retention_days.
func (k Keys) BoardSettings(board string) string { return k.boardTag(board) + ":settings" }

// LegacyBoardSettings is where zpulse kept a board's settings before the braces
// (zpulse:board:<board>:settings). It is only read, to carry a board's settings over to
// BoardSettings (boardSettings), and deleted with the board. Names hold no braces, so it never
// equals a key of the current layout.
func (k Keys) LegacyBoardSettings(board string) string {
	return k.OwnPrefix + "board:" + board + ":settings"
}

// BoardUnique is the HyperLogLog of the players who scored on a board on t's day (UTC).
func (k Keys) BoardUnique(board string, t time.Time) string {
	return k.boardTag(board) + ":unique:" + domain.Daily.Suffix(t)
}

// Lock is the STRING of a lock, exactly the article's: the holder's token, with a PX lease.
// Another service's SET lock:<name> <uuid> NX EX 30 and zpulse's acquire exclude each other.
func (k Keys) Lock(name string) string { return k.LockPrefix + name }

// LockMeta is zpulse's own HASH beside a lock: owner (the token it describes), holds (the
// reentrancy count, Redisson's owner -> count), ttl_ms and watchdog. It carries the same PX
// as the lock. The braces make it hash like the lock key itself ({lock:x}:meta hashes
// "lock:x", as does the brace-less lock:x), so every lock script stays on one Redis Cluster
// slot while lock:<name> keeps the article's name. The braces also keep these keys out of
// SCAN MATCH lock:*, which then finds locks only.
func (k Keys) LockMeta(name string) string { return "{" + k.Lock(name) + "}:meta" }

// LockFence is the lock's fencing counter (STRING, no expiry; kept by force-release), in the
// lock's slot for the same reason as LockMeta.
func (k Keys) LockFence(name string) string { return "{" + k.Lock(name) + "}:fence" }

// SingletonLock is the name of the lock of a loop that runs in one instance at a time:
// loop "queue-reaper" holds lock zpulse:queue-reaper, whose key is lock:zpulse:queue-reaper.
// Lock names starting with OwnPrefix are zpulse's own (IsSingletonLock): Locks refuses to take
// them for anyone else, so no lock a user takes is a singleton's. (Braces would not do here:
// lock:{x}'s parts {lock:{x}}:meta would hash to another Cluster slot than the lock.)
func (k Keys) SingletonLock(loop string) string { return k.OwnPrefix + loop }

// IsSingletonLock says whether a lock name is reserved for zpulse's singleton loops.
func (k Keys) IsSingletonLock(name string) bool { return strings.HasPrefix(name, k.OwnPrefix) }

// LockIndex is the SET of lock names zpulse has taken, so the /locks page finds them at once;
// locks taken by other services are found by a slow, bounded SCAN of lock:*.
func (k Keys) LockIndex() string { return k.OwnPrefix + "index:locks" }

// JobCursorKey is a STRING holding the secret that signs job list cursors (random, made by
// the first instance that needs it), so a cursor one instance gave is good on every other.
func (k Keys) JobCursorKey() string { return k.OwnPrefix + "job-cursor-key" }

// ---- adopted sources ----

// Sources is zpulse's HASH of adopted sources: name -> the domain.Source as JSON.
func (k Keys) Sources() string { return k.OwnPrefix + "sources" }

// Families are the key prefixes zpulse writes under, each with the kind of adopted source
// that may still name keys there (domain.Source.Validate): zpulse's own keys, the braced
// keys beside its queues and locks (only those: a service's own hash tag, {game}:rank:…, is
// adoptable), and the articles' keys of its boards, queues, locks and
// limiters. rate: is adopted by no source: its sliding logs are the default policy's.
func (k Keys) Families() []domain.KeyFamily {
	return []domain.KeyFamily{
		{Prefix: k.OwnPrefix, Holds: "zpulse's own keys (" + k.OwnPrefix + "…)"},
		{Prefix: "{" + k.QueuePrefix, Holds: "zpulse's keys beside its queues ({" + k.Queue("<name>") + "}:…)"},
		{Prefix: "{" + k.LockPrefix, Holds: "zpulse's keys beside its locks ({" + k.Lock("<name>") + "}:…)"},
		{Prefix: "{" + k.LeaderboardPrefix, Holds: "zpulse's keys beside its boards, their seasons ({" + k.Leaderboard("<name>") + "}:season:<n>)"},
		{Prefix: k.LeaderboardPrefix, Holds: "a board's key (" + k.Leaderboard("<name>") + ")", Kind: domain.SourceBoard},
		{Prefix: k.QueuePrefix, Holds: "a queue's key (" + k.Queue("<name>") + ")", Kind: domain.SourceQueue},
		{Prefix: k.LockPrefix, Holds: "a lock's key (" + k.Lock("<name>") + ")", Kind: domain.SourceLock},
		{Prefix: k.RatePrefix, Holds: "zpulse's limiters' keys (" + k.RatePrefix + "…; the articles' " + k.RatePrefix + "<client> is the default policy's, on /limiters/default)"},
	}
}

// SourceBoard is the key an adopted board is read at now: its layout with the current
// period filled in. Another service's key: zpulse reads it only.
func (k Keys) SourceBoard(s domain.Source, now time.Time) string { return s.BoardKey(now) }

// SourceClient is an adopted limiter's key for a client at now, in the service's layout: the
// only key zpulse writes for an adopted source (a "try").
func (k Keys) SourceClient(s domain.Source, client string, now time.Time) string {
	return s.ClientKey(client, now)
}

// ---- rate limiters ----
//
// Per-client state lives under RatePrefix, one key per client, so that each script touches
// one key and clients spread over a Cluster's slots:
//
//	rate:<client>                   ZSET  sliding_log of the policy "default" (the articles' key):
//	                                      score = request epoch ms, member = random UUID
//	rate:sl:<policy>:{<client>}     ZSET  sliding_log of any other policy, same encoding
//	rate:fw:<policy>:{<client>}     HASH  fixed_window: w = window start epoch ms, n = count
//	rate:swc:<policy>:{<client>}    HASH  sliding_counter: w = current window start epoch ms,
//	                                      c = its count, p = the previous window's count
//	rate:tb:<policy>:{<client>}     HASH  token_bucket: tokens (a decimal string), ts = last
//	                                      refill epoch ms
//
// Neither names nor clients may contain braces (domain.ValidateName, domain.ValidateClient),
// so the layout is injective although both may contain ":": a key with braces is never the
// default policy's; in one with braces the tag ends at the first ":", the policy at the "{"
// and the client at the final "}". The client is the hash tag, so a policy's clients spread
// over the slots (each client's keys of every policy share one).
//
// zpulse's own keys put the policy in braces, so a policy's own keys share a Cluster slot:
//
//	zpulse:limiter:{<policy>}                  HASH  the policy (algorithm, limit, window_ms, rate_per_s, burst)
//	zpulse:limiter:{<policy>}:clients          ZSET  clients seen lately: member = client, score = last seen epoch ms
//	zpulse:limiter:{<policy>}:events:<client>  LIST  the client's latest checks, newest first: "<epoch ms>:1" admitted, ":0" rejected
//	zpulse:limiter:{<policy>}:stats:<minute>   HASH  "<unix second>:a" / ":r" -> checks admitted / rejected in that second
//	zpulse:index:limiters                      SET   names of saved policies

// algorithmTags are the tags of the per-client keys of every policy but "default".
var algorithmTags = map[domain.Algorithm]string{
	domain.SlidingLog: "sl", domain.FixedWindow: "fw", domain.SlidingCounter: "swc", domain.TokenBucket: "tb",
}

// LimiterState is a client's state key for a policy with the given algorithm.
func (k Keys) LimiterState(p domain.LimitPolicy, client string) string {
	return k.limiterState(p.Algorithm, p.Name, client)
}

func (k Keys) limiterState(a domain.Algorithm, policy, client string) string {
	if a == domain.SlidingLog && policy == domain.DefaultLimiter {
		return k.RatePrefix + client
	}
	tag, ok := algorithmTags[a]
	if !ok {
		tag = algorithmTags[domain.SlidingLog]
	}
	return k.RatePrefix + tag + ":" + policy + ":{" + client + "}"
}

// ParseLimiterState reads a key under RatePrefix back into the algorithm, policy and client
// LimiterState built it from. A key without braces is the default policy's sliding log, as
// the articles' services write it; ok is false for a key no valid (policy, client) builds.
func (k Keys) ParseLimiterState(key string) (a domain.Algorithm, policy, client string, ok bool) {
	rest, ok := strings.CutPrefix(key, k.RatePrefix)
	if !ok {
		return "", "", "", false
	}
	if !strings.ContainsAny(rest, "{}") {
		return domain.SlidingLog, domain.DefaultLimiter, rest, domain.ValidateKeyName("client", rest) == nil // a read: another service's client, whatever its bytes
	}
	tag, rest, _ := strings.Cut(rest, ":")
	open := strings.IndexByte(rest, '{')
	if open < 1 || rest[open-1] != ':' || !strings.HasSuffix(rest, "}") {
		return "", "", "", false
	}
	policy, client = rest[:open-1], rest[open+1:len(rest)-1]
	for alg, t := range algorithmTags {
		if t == tag {
			a = alg
		}
	}
	if a == "" || domain.ValidateLimiterName(policy) != nil || domain.ValidateClient(client) != nil ||
		(a == domain.SlidingLog && policy == domain.DefaultLimiter) {
		return "", "", "", false
	}
	return a, policy, client, true
}

// LimiterStateDisplay names a policy's per-client state for people: its type and its key with
// a <client> placeholder, e.g. "ZSET rate:<client>".
func (k Keys) LimiterStateDisplay(p domain.LimitPolicy) string {
	typ := "HASH"
	if p.Algorithm == domain.SlidingLog {
		typ = "ZSET"
	}
	if p.Algorithm == "" {
		return ""
	}
	return typ + " " + k.LimiterState(p, "<client>")
}

// LimiterPolicy is the HASH holding a policy.
func (k Keys) LimiterPolicy(policy string) string { return k.OwnPrefix + "limiter:{" + policy + "}" }

// LimiterClients is the ZSET of a policy's clients seen lately.
func (k Keys) LimiterClients(policy string) string { return k.LimiterPolicy(policy) + ":clients" }

// LimiterEvents is the LIST of a client's latest checks under a policy.
func (k Keys) LimiterEvents(policy, client string) string {
	return k.LimiterPolicy(policy) + ":events:" + client
}

// LimiterStats is the HASH of a policy's per-second counts during one minute (unix minute).
func (k Keys) LimiterStats(policy string, minute int64) string {
	return k.LimiterPolicy(policy) + ":stats:" + strconv.FormatInt(minute, 10)
}

// LimiterIndex is the SET of saved policy names.
func (k Keys) LimiterIndex() string { return k.OwnPrefix + "index:limiters" }

// ParseSlidingLog reads a key under RatePrefix as the sliding log of a client of one of the
// given sliding-log policies.
func (k Keys) ParseSlidingLog(key string, logs map[string]domain.LimitPolicy) (policy, client string, ok bool) {
	a, policy, client, ok := k.ParseLimiterState(key)
	if _, saved := logs[policy]; !ok || a != domain.SlidingLog || !saved {
		return "", "", false
	}
	return policy, client, true
}

// DemoPaused is a STRING that exists while the demo traffic is paused.
func (k Keys) DemoPaused() string { return k.OwnPrefix + "demo:paused" }

// NotifyProbe is the STRING the keyspace-notification subscriber writes every 2 s (10 s PX)
// to learn whether events still reach it: one per master of a Cluster, n chosen so that the
// master owns its slot.
func (k Keys) NotifyProbe(n int) string {
	return k.OwnPrefix + "notify-probe:{" + strconv.Itoa(n) + "}"
}

// Queue is the ZSET of a queue, the article's key: member = job id, score = priority*1e13 +
// enqueue ms (priority queue) or run-at ms (delayed queue).
func (k Keys) Queue(name string) string { return k.QueuePrefix + name }

// The keys beside a queue carry its name in braces: {queue:x}:processing hashes like the
// brace-less queue:x (Redis Cluster hashes the whole name of a key without braces, and only
// the part in braces of one with them), so every queue script stays on one slot while the
// queue keeps the article's name. The braces also keep them out of SCAN MATCH queue:*.
func (k Keys) queueTag(name string) string { return "{" + k.Queue(name) + "}" }

// QueueProcessing is the ZSET of a queue's jobs in flight (docs/architecture.md, "Redis keys"): member = job id,
// score = lease deadline, epoch ms. The reaper returns what is past its deadline.
func (k Keys) QueueProcessing(name string) string { return k.queueTag(name) + ":processing" }

// QueueJobs is the HASH of a queue's payloads (docs/architecture.md, "Redis keys"): job id -> "@<score>|<JSON>", the
// payload bound to the score of the enqueue it came with (see boundPayload). A payload leaves
// with the ack (or with a poll without lease, or a delete), or as an orphan (QueueOrphans).
func (k Keys) QueueJobs(name string) string { return k.queueTag(name) + ":jobs" }

// QueueTypes is zpulse's HASH of each typed job's type (domain.NewJob.Type): job id -> type,
// written by the enqueue beside the article's encoding (which it leaves as it is), so the
// type follows the job through every move by its id. An enqueue without a type removes any
// older one of that id; a delete removes it.
func (k Keys) QueueTypes(name string) string { return k.queueTag(name) + ":types" }

// QueueDoneTypes is zpulse's HASH of the type of each typed job of QueueDone: job id ->
// type, moved there from QueueTypes by the ack and trimmed with QueueDoneInfo.
func (k Keys) QueueDoneTypes(name string) string { return k.queueTag(name) + ":done:types" }

// QueueOrphans is zpulse's ZSET of payloads that belong to no job: member = job id, score =
// when the reaper first saw it orphaned, epoch ms. It is removed after domain.OrphanGrace.
func (k Keys) QueueOrphans(name string) string { return k.queueTag(name) + ":orphans" }

// QueueDead is zpulse's ZSET of a queue's dead jobs, leased MaxAttempts times without an
// ack: member = job id, score = when it died, epoch ms.
func (k Keys) QueueDead(name string) string { return k.queueTag(name) + ":dead" }

// QueueAttempts is zpulse's HASH of deliveries with a lease per job: job id -> count. It
// lives while the job is waiting for a retry, in flight or dead.
func (k Keys) QueueAttempts(name string) string { return k.queueTag(name) + ":attempts" }

// QueueScores is zpulse's HASH of the score a leased job had in its queue: job id -> score,
// so the reaper returns it to its place and a requeue keeps its priority. It lives while the
// job is in flight, dead or retrying (QueueRetry).
func (k Keys) QueueScores(name string) string { return k.queueTag(name) + ":scores" }

// QueueRetry is zpulse's ZSET of a priority queue's jobs nacked with a delay: member = job
// id, score = when it returns to its queue (epoch ms, caller's clock). Kept out of
// queue:<name>, whose direct consumers ZPOPMIN it, until then; its place in line waits in
// QueueScores (see queue_retry.go).
func (k Keys) QueueRetry(name string) string { return k.queueTag(name) + ":retry" }

// QueueLeases is zpulse's HASH of the token of each job's latest lease: job id -> token.
// Ack, extend and nack must show it. It is replaced by the next lease and removed when the job
// completes or is deleted; after the reaper returned a job it stays, so a late ack is told
// that its lease ended rather than that the job is unknown.
func (k Keys) QueueLeases(name string) string { return k.queueTag(name) + ":leases" }

// QueueErrors is zpulse's HASH of the errors of each job's last failed attempts: job id ->
// JSON array of {"attempt","at" (epoch ms),"error"}, at most domain.AttemptErrorsKept long.
// It lives while the job is waiting for a retry or dead.
func (k Keys) QueueErrors(name string) string { return k.queueTag(name) + ":errors" }

// QueueCompleted is zpulse's ZSET of the jobs completed lately (acked, or taken without a
// lease): member = job id, score = completion time, epoch ms (lease clock). An enqueue of one
// of these ids is a retry and is refused. Trimmed to domain.CompletedRetention and
// domain.CompletedKept ids by every write, and expires with QueueAckTokens when the queue is
// idle that long.
func (k Keys) QueueCompleted(name string) string { return k.queueTag(name) + ":completed" }

// QueueAckTokens is zpulse's HASH of the lease token that completed each job of
// QueueCompleted that was acked: job id -> token, so an ack repeated by the
// consumer that acked succeeds again, and another's is told the job is done.
func (k Keys) QueueAckTokens(name string) string { return k.queueTag(name) + ":acked" }

// QueueDone is zpulse's ZSET of the completed jobs kept for operators
// (domain.CompletedPolicy): member = job id, score = when it was acked, epoch ms (lease
// clock). Trimmed by every ack to the policy's Keep newest and MaxAge; expires MaxAge after
// the last ack. Apart from QueueCompleted, which only makes an enqueue safe to retry.
func (k Keys) QueueDone(name string) string { return k.queueTag(name) + ":done" }

// QueueDoneInfo is zpulse's HASH of what is kept of each job of QueueDone: job id ->
// "<lease-to-ack ms>|<attempts>|<consumer>" (a field "" when not known).
func (k Keys) QueueDoneInfo(name string) string { return k.queueTag(name) + ":done:info" }

// QueueDonePayloads is zpulse's HASH of the payloads of the jobs of QueueDone, written only
// with domain.CompletedPolicy.Payloads: job id -> payload as enqueued (bound, see
// queues.boundPayload).
func (k Keys) QueueDonePayloads(name string) string { return k.queueTag(name) + ":done:payloads" }

// QueueSettings is zpulse's HASH of a queue's settings: kind ("priority" or "delayed"),
// max_attempts. Scripts read it in the queue's slot.
func (k Keys) QueueSettings(name string) string { return k.queueTag(name) + ":settings" }

// QueuePaused is zpulse's STRING that exists while a queue is paused: the poll scripts read
// it in the same atomic step as the take, so no poll through zpulse takes a job once it is
// set. Consumers that read the queue's ZSET directly do not know it.
func (k Keys) QueuePaused(name string) string { return k.queueTag(name) + ":paused" }

// QueueThroughput is zpulse's HASH of a queue's counts in one minute (the minute of t, UTC):
// "e<second>" jobs enqueued and "c<second>" jobs completed in that second. It expires
// queueThroughputTTL after it was last written.
func (k Keys) QueueThroughput(name string, t time.Time) string {
	return k.queueTag(name) + ":tput:" + strconv.FormatInt(t.Unix()/60, 10)
}

// QueueHolders is zpulse's HASH of who holds each job's latest lease and since when: job id
// -> "<lease start epoch ms>|<consumer>" (domain.ConsumerID, "" when none was recorded). The
// lease script writes it; ack, nack and the reaper read and remove the job's field (the
// attempt's duration, the consumer's counts). It expires queueHoldersTTL after the queue's
// last lease, so a field left by a job deleted in flight does not outlive that.
func (k Keys) QueueHolders(name string) string { return k.queueTag(name) + ":holders" }

// QueueConsumers is zpulse's ZSET of a queue's consumers: member = domain.ConsumerID, score =
// its last poll with a lease, epoch ms (lease clock). Each poll drops those not seen for
// domain.ConsumerTTL and keeps at most domain.ConsumersKept; the key expires ConsumerTTL
// after the last poll.
func (k Keys) QueueConsumers(name string) string { return k.queueTag(name) + ":consumers" }

// QueueConsumerCounts is zpulse's HASH of a queue's acks and nacks by consumer in one minute
// (the minute of t, UTC): "a|<consumer>" acks, "n|<consumer>" nacks. It expires
// queueThroughputTTL after it was last written.
func (k Keys) QueueConsumerCounts(name string, t time.Time) string {
	return k.queueTag(name) + ":cstats:" + strconv.FormatInt(t.Unix()/60, 10)
}

// QueueDurations is zpulse's HASH of a queue's lease-to-ack times in one minute (the minute
// of t, UTC), by 10 s part of the minute p (0..5): "<p>:b<i>" -> acks whose time fell in
// bucket i of domain.DurationBoundsMs, "<p>:max" -> the longest, ms. It expires
// queueThroughputTTL after it was last written; the history recorder reads it.
func (k Keys) QueueDurations(name string, t time.Time) string {
	return k.queueTag(name) + ":dur:" + strconv.FormatInt(t.Unix()/60, 10)
}

// QueueDurationTotals is zpulse's HASH of a queue's lease-to-ack times since it first
// counted one, for /metrics' histogram: "b<i>" -> count of bucket i, "sum" -> ms. No expiry:
// at most 17 small fields per queue.
func (k Keys) QueueDurationTotals(name string) string { return k.queueTag(name) + ":dur" }

// QueueReaperFence is zpulse's STRING of the highest fencing token a reaper showed on this
// queue (the singleton lock's, see Singletons): the reap script refuses a lower one, so a
// reaper whose lease ran out while it was paused cannot reap beside its successor. No
// expiry: one small key per queue.
func (k Keys) QueueReaperFence(name string) string { return k.queueTag(name) + ":reaper" }

// QueueIndex is the SET of queue names zpulse has written to; queues other services wrote
// are found by a slow, bounded SCAN of queue:*.
func (k Keys) QueueIndex() string { return k.OwnPrefix + "index:queues" }

// ---- schedules ----

// ScheduleIndex is zpulse's HASH of every schedule: name -> the queue it enqueues on (a
// name is unique across queues). The schedule itself lives on its queue's slot (Schedule).
func (k Keys) ScheduleIndex() string { return k.OwnPrefix + "index:schedules" }

// Schedule is the HASH of a schedule, beside its queue ({queue:<queue>}:schedule:<name>, the
// queue's Cluster slot): its spec (every_ms or cron, zone, the job's type, priority, delay_ms,
// payload), created_ms, and its state (next_ms, last_ms, last_job, last_error, paused), so one
// script advances the schedule and enqueues its period's job.
func (k Keys) Schedule(queue, name string) string { return k.queueTag(queue) + ":schedule:" + name }

// BoardAdds is zpulse's HASH of a board's point adds and score sets in one minute (the minute
// of t, UTC): "<second>" -> writes in that second. It expires boardAddsTTL after it was last
// written; the history recorder sums it into buckets.
func (k Keys) BoardAdds(board string, t time.Time) string {
	return k.boardTag(board) + ":adds:" + strconv.FormatInt(t.Unix()/60, 10)
}

// ---- history ----
//
// Each entity's history is two fixed-size rings, STRINGs of binary slots written with
// SETRANGE (one command per slot, no read-modify-write), beside the entity's own keys and in
// its Cluster slot (the entity's braces):
//
//	<entity>:hist:10s   360 slots of 10 s  (the last hour)
//	<entity>:hist:1m    1,440 slots of 1 min (the last 24 hours)
//
// where <entity> is {queue:<name>}, zpulse:limiter:{<policy>} or zpulse:board:{<board>}.

// historyEntity is the prefix of an entity's history keys.
func (k Keys) historyEntity(kind domain.HistoryKind, name string) string {
	switch kind {
	case domain.HistoryQueue:
		return k.queueTag(name)
	case domain.HistoryLimiter:
		return k.LimiterPolicy(name)
	default:
		return k.boardTag(name)
	}
}

// HistoryRing is the STRING ring of an entity's buckets over a range (see history.go for the
// slot layout).
func (k Keys) HistoryRing(kind domain.HistoryKind, name string, r domain.HistoryRange) string {
	res := "10s"
	if r == domain.HistoryDay {
		res = "1m"
	}
	return k.historyEntity(kind, name) + ":hist:" + res
}

// HistoryTotals is the HASH of every entity's counters of a kind, summed over each recorded
// 10 s bucket, for /metrics: "<series>:<name>" -> count (e.g. "completed:email-jobs"), and
// "bucket:<name>", the last bucket added (so a bucket is never added twice). One hash per
// kind, so a scrape reads every total with one HGETALL. Series names hold no ":", so the
// field splits at its first one.
func (k Keys) HistoryTotals(kind domain.HistoryKind) string {
	return k.OwnPrefix + "history:totals:" + string(kind)
}

// ---- admin access ----
//
// Sessions share one Cluster slot ({sessions}), so a session and the generation it was
// opened in are read by one script; there are few of them (admins' browsers). Attempt
// counters spread by address. A session id never appears in a key: only its SHA-256 does,
// so reading the keyspace does not give away a session.
//
//	zpulse:{sessions}:generation      STRING  counter, no expiry: "sign out everywhere" bumps it
//	zpulse:{sessions}:id:<sha256 hex> STRING  "<generation>:<token fingerprint>:<role>:<token id>:<name>", PX the session's life
//	zpulse:{sessions}:token:<id>      HASH    a personal token: name, role, hash (SHA-256 of the secret),
//	                                          created_at, created_by, expires_at (ms; 0 never), last_used; PXAT its expiry
//	zpulse:{sessions}:token-name:<n>  STRING  the id of the token named n; PXAT its expiry
//	zpulse:{sessions}:tokens          SET     every token's id (an id whose record expired is dropped when listed)
//	zpulse:sign-in:{<address>}        HASH    fixed_window state of domain.SignInAttempts: w, n

// SessionGeneration is the counter that ends every session opened before it changed.
func (k Keys) SessionGeneration() string { return k.OwnPrefix + "{sessions}:generation" }

// Session is the record of the session whose id hashes to idHash (64 hex digits).
func (k Keys) Session(idHash string) string { return k.OwnPrefix + "{sessions}:id:" + idHash }

// Token is the record of the personal token whose id is id (16 hex digits, the public part of
// its secret).
func (k Keys) Token(id string) string { return k.OwnPrefix + "{sessions}:token:" + id }

// TokenName is the id of the personal token named name.
func (k Keys) TokenName(name string) string { return k.OwnPrefix + "{sessions}:token-name:" + name }

// Tokens is the set of every personal token's id.
func (k Keys) Tokens() string { return k.OwnPrefix + "{sessions}:tokens" }

// SignInAttempts is an address's count of admin-token attempts in the current window.
// Addresses (IPv4, IPv6) hold no braces, so the key is one address's alone.
func (k Keys) SignInAttempts(addr string) string { return k.OwnPrefix + "sign-in:{" + addr + "}" }

// Audit is zpulse's STREAM of change requests, the audit trail (domain.AuditEntry): one entry
// a request, fields actor, role, via, action, target, detail, outcome, client, request_id;
// the id is Redis's time of the write. Capped by count (XADD MAXLEN ~) and by age (XTRIM
// MINID). Its hash tag gives it a slot of its own on a Cluster.
//
//	zpulse:{audit}  STREAM
func (k Keys) Audit() string { return k.OwnPrefix + "{audit}" }

// ---- prefixes a live panel watches (internal/panels: what a keyspace notification wakes) ----

// BoardOwn starts every key of zpulse's own for a board (settings, unique counts, adds, history).
func (k Keys) BoardOwn(board string) string { return k.boardTag(board) + ":" }

// BoardsOwn starts every board's own keys.
func (k Keys) BoardsOwn() string { return k.OwnPrefix + "board:" }

// QueueOwn starts every key of a queue's tag (processing, jobs, dead, settings, throughput, …).
func (k Keys) QueueOwn(name string) string { return k.queueTag(name) + ":" }

// QueuesOwn starts every queue's tagged keys.
func (k Keys) QueuesOwn() string { return "{" + k.QueuePrefix }

// LimiterStatePrefixes start a policy's per-client state keys, whatever its algorithm.
func (k Keys) LimiterStatePrefixes(policy string) []string {
	var out []string
	for _, a := range domain.Algorithms {
		out = append(out, strings.TrimSuffix(k.limiterState(a, policy, ""), "}"))
	}
	return out
}

// LimitersOwn starts every policy's own keys (the policy, its clients, events, stats, history).
func (k Keys) LimitersOwn() string { return k.OwnPrefix + "limiter:{" }

// LocksMeta starts every lock's meta and fence keys ({lock:<name>}:meta).
func (k Keys) LocksMeta() string { return "{" + k.LockPrefix }
