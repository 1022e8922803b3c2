package domain

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
)

// Live topics name what a live fragment shows. A page subscribes to topics; the watcher reads
// each subscribed topic from Redis on every tick and pushes it when it changed. Each kind of
// topic is one panel's, declared in internal/panels (its parameters, watched keys, read and
// render), which formats and parses it with the functions here.
const (
	// TopicStatus carries Redis availability; every page subscribes to it.
	TopicStatus = "status"
	// TopicBoards is every board with its player count and top 3 (a []BoardSummary).
	TopicBoards = "boards"
)

// BoardTopNs are the sizes a board's live panel can show.
var BoardTopNs = []int{10, 25, 50, 100}

// BoardTopN is the size of a board's live panel unless the page asks for another.
const BoardTopN = 10

// Topic names are short ASCII (the live endpoint's pattern), and a name zpulse could create
// goes in as it is, so topics stay readable. Any other name (another service's board
// "排行榜:2048", a queue "mail jobs") goes in base64url under a kind of its own ("boardx",
// "queuex"), so the two forms never meet.
var topicNames = base64.RawURLEncoding

// topicName returns how name goes into a topic of kind (e.g. "board") and the kind to use.
func topicName(kind, name string) (string, string) {
	if ValidateName(kind, name) == nil {
		return kind, name
	}
	return kind + "x", topicNames.EncodeToString([]byte(name))
}

// nameFromTopic reads back a name topicName wrote under kind ("board" or "boardx").
func nameFromTopic(base, kind, s string) (string, bool) {
	switch kind {
	case base:
		return s, ValidateName(base, s) == nil
	case base + "x":
		b, err := topicNames.DecodeString(s)
		name := string(b)
		return name, err == nil && ValidateName(base, name) != nil && ValidateKeyName(base, name) == nil
	}
	return "", false
}

// BoardTopic is the topic of a board's live panel: a BoardTop of n entries of a period's
// board, e.g. "board.all.10:game:2048" or "board.daily.25:game:2048" (and
// "boardx.all.10:5o6S6KGM5qacOjIwNDg" for 排行榜:2048).
func BoardTopic(board string, period Period, n int) string {
	p := string(period)
	if period == AllTime {
		p = "all"
	}
	kind, name := topicName("board", board)
	return kind + "." + p + "." + strconv.Itoa(n) + ":" + name
}

// ParseBoardTopic reads a BoardTopic.
func ParseBoardTopic(topic string) (board string, period Period, n int, ok bool) {
	head, encoded, found := strings.Cut(topic, ":")
	parts := strings.Split(head, ".")
	if !found || len(parts) != 3 {
		return "", "", 0, false
	}
	board, ok = nameFromTopic("board", parts[0], encoded)
	if !ok {
		return "", "", 0, false
	}
	period, err := ParsePeriod(parts[1])
	n, nerr := strconv.Atoi(parts[2])
	if err != nil || nerr != nil || !slices.Contains(BoardTopNs, n) {
		return "", "", 0, false
	}
	return board, period, n, true
}

// BoardSummary is a board as the boards list shows it.
type BoardSummary struct {
	Board   string  `json:"board"`
	Players int64   `json:"players"`
	Top     []Entry `json:"top"`
	// WrongType is the Redis type of the board's key when another service keeps another type
	// than a sorted set there ("list"), shown as domain.NotASortedSet; "" for a board.
	WrongType string `json:"wrong_type,omitempty"`
	// RolloverFailure says why the board's scheduled season end failed at the season
	// rollover's last round ("" when it did not).
	RolloverFailure string `json:"-"`
}

// TopicLocks carries the held locks (a HeldLocks) of the /locks page.
const TopicLocks = "locks"

// TopicSchedules carries the recurring schedules (a []Schedule) of the /schedules page.
const TopicSchedules = "schedules"

// TopicAudit carries the newest entries of the audit trail (an AuditPage) of the /audit page.
const TopicAudit = "audit"

// limiterTopicPrefix + limiter: a limiter's live view (a LimiterView).
const limiterTopicPrefix = "limiter:"

// LimiterTopic is the topic of a limiter's live view.
func LimiterTopic(limiter string) string { return limiterTopicPrefix + limiter }

// ParseLimiterTopic returns the limiter a limiter topic is about.
func ParseLimiterTopic(topic string) (limiter string, ok bool) {
	limiter, ok = strings.CutPrefix(topic, limiterTopicPrefix)
	return limiter, ok && ValidateLimiterName(limiter) == nil
}

// TopicLimiters is every limiter's live view (a []LimiterView), for the overview.
const TopicLimiters = "limiters"

// TopicQueues is every queue with its depth (a []QueueSummary), for the overview.
const TopicQueues = "queues"

// A queue's topic is "queue." + its name: a dot, not a colon, so that topic names never read
// like the queue's Redis key.
// QueueTopic is the topic of a queue's page: a QueueView, e.g. queue.email-jobs (and
// queuex.bWFpbCBqb2Jz for "mail jobs").
func QueueTopic(queue string) string {
	kind, name := topicName("queue", queue)
	return kind + "." + name
}

// ParseQueueTopic reads a QueueTopic.
func ParseQueueTopic(topic string) (queue string, ok bool) {
	kind, encoded, found := strings.Cut(topic, ".")
	if !found {
		return "", false
	}
	return nameFromTopic("queue", kind, encoded)
}

// KeyDisplay names Redis keys for people, as pages show them (the repository fills it from
// its key layout), so views never spell a key themselves.
type KeyDisplay struct {
	Boards      string // the pattern of boards, e.g. leaderboard:*
	Queues      string // the pattern of queues, e.g. queue:*
	Lock        string // a lock's key with a placeholder, e.g. lock:<name>
	LockExample string // a lock's key for an example command, e.g. lock:order:1001
	RateDefault string // the default limiter's per-client key, e.g. rate:<client>
	// InternalLocks starts the names of zpulse's own locks (its background loops' singleton
	// locks, e.g. zpulse:queue-reaper): pages mark them and ask twice before a force-release.
	InternalLocks string
}

// InternalLock says whether a lock is one of zpulse's own (KeyDisplay.InternalLocks).
func (k KeyDisplay) InternalLock(name string) bool {
	return k.InternalLocks != "" && strings.HasPrefix(name, k.InternalLocks)
}

// sourceTopicPrefix + source: an adopted source's live view (a SourceView).
const sourceTopicPrefix = "source."

// SourceTopic is the topic of an adopted source's live view.
func SourceTopic(name string) string { return sourceTopicPrefix + name }

// ParseSourceTopic returns the source a source topic is about.
func ParseSourceTopic(topic string) (name string, ok bool) {
	name, ok = strings.CutPrefix(topic, sourceTopicPrefix)
	return name, ok && ValidateName("source", name) == nil
}

// A job's topic is its kind ("job", or "jobx" for a queue named by another service, see
// topicName) + "." + the length of the queue's part + "." + that part + the id in base64url:
// a job's page (a JobDetail). Job ids may hold any printable text and topics only
// [A-Za-z0-9:._-], so the id is encoded, and the length says where the queue ends (its name
// may hold any topic character).

// JobTopic is the topic of a job's page, e.g. job.5.emailcGFzc3dvcmQtcmVzZXQ.
func JobTopic(queue, id string) string {
	kind, name := topicName("queue", queue)
	kind = map[string]string{"queue": "job", "queuex": "jobx"}[kind]
	return kind + "." + strconv.Itoa(len(name)) + "." + name + b64.EncodeToString([]byte(id))
}

// ParseJobTopic reads a JobTopic.
func ParseJobTopic(topic string) (queue, id string, ok bool) {
	kind, rest, found := strings.Cut(topic, ".")
	n, rest, found2 := strings.Cut(rest, ".")
	size, err := strconv.Atoi(n)
	if !found || !found2 || err != nil || size < 1 || size > len(rest) {
		return "", "", false
	}
	kind = map[string]string{"job": "queue", "jobx": "queuex"}[kind]
	queue, ok = nameFromTopic("queue", kind, rest[:size])
	raw, err := b64.DecodeString(rest[size:])
	if !ok || err != nil || ValidateJobID(string(raw)) != nil {
		return "", "", false
	}
	return queue, string(raw), true
}
