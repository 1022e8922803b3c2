package domain

import (
	"slices"
	"strconv"
	"strings"
)

// Live topics name what a live fragment shows. A page subscribes to topics; the watcher reads
// each subscribed topic from Redis on every tick and pushes it when it changed.
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

// BoardTopic is the topic of a board's live panel: a BoardTop of n entries of a period's
// board, e.g. "board.all.10:game:2048" or "board.daily.25:game:2048".
func BoardTopic(board string, period Period, n int) string {
	p := string(period)
	if period == AllTime {
		p = "all"
	}
	return "board." + p + "." + strconv.Itoa(n) + ":" + board
}

// ParseBoardTopic reads a BoardTopic.
func ParseBoardTopic(topic string) (board string, period Period, n int, ok bool) {
	head, board, found := strings.Cut(topic, ":")
	parts := strings.Split(head, ".")
	if !found || len(parts) != 3 || parts[0] != "board" || ValidateName("board", board) != nil {
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
}

// TopicLocks carries the held locks (a HeldLocks) of the /locks page.
const TopicLocks = "locks"

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

// queueTopicPrefix + queue: a queue's page (a QueueView). A dot, not a colon, so that topic
// names never read like the queue's Redis key.
const queueTopicPrefix = "queue."

// QueueTopic is the topic of a queue's page: a QueueView, e.g. queue.email-jobs.
func QueueTopic(queue string) string { return queueTopicPrefix + queue }

// ParseQueueTopic reads a QueueTopic.
func ParseQueueTopic(topic string) (queue string, ok bool) {
	queue, found := strings.CutPrefix(topic, queueTopicPrefix)
	if !found || ValidateName("queue", queue) != nil {
		return "", false
	}
	return queue, true
}

// KeyDisplay names Redis keys for people, as pages show them (the repository fills it from
// its key layout), so views never spell a key themselves.
type KeyDisplay struct {
	Boards      string // the pattern of boards, e.g. leaderboard:*
	Queues      string // the pattern of queues, e.g. queue:*
	Lock        string // a lock's key with a placeholder, e.g. lock:<name>
	LockExample string // a lock's key for an example command, e.g. lock:order:1001
	RateDefault string // the default limiter's per-client key, e.g. rate:<client>
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

// jobTopicPrefix + the queue name's length + "." + queue + the id in base64url: a job's page
// (a JobDetail). Job ids may hold any printable text and topics only [A-Za-z0-9:._-], so the
// id is encoded, and the queue's length says where the queue ends (its name may hold any
// topic character).
const jobTopicPrefix = "job."

// JobTopic is the topic of a job's page, e.g. job.5.emailcGFzc3dvcmQtcmVzZXQ.
func JobTopic(queue, id string) string {
	return jobTopicPrefix + strconv.Itoa(len(queue)) + "." + queue + b64.EncodeToString([]byte(id))
}

// ParseJobTopic reads a JobTopic.
func ParseJobTopic(topic string) (queue, id string, ok bool) {
	rest, found := strings.CutPrefix(topic, jobTopicPrefix)
	n, rest, found2 := strings.Cut(rest, ".")
	size, err := strconv.Atoi(n)
	if !found || !found2 || err != nil || size < 1 || size > len(rest) {
		return "", "", false
	}
	queue = rest[:size]
	raw, err := b64.DecodeString(rest[size:])
	if err != nil || ValidateName("queue", queue) != nil || ValidateJobID(string(raw)) != nil {
		return "", "", false
	}
	return queue, string(raw), true
}
