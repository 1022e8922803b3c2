package domain

import "strings"

// Live topics name what a live fragment shows. A page subscribes to topics; the watcher reads
// each subscribed topic from Redis on every tick and pushes it when it changed.
const (
	// TopicStatus carries Redis availability; every page subscribes to it.
	TopicStatus = "status"
	// boardTopicPrefix + board: a board's head, BoardTopN entries (a BoardTop).
	boardTopicPrefix = "board:"
)

// BoardTopN is how many entries a board's live panel shows.
const BoardTopN = 10

// BoardTopic is the topic of a board's live panel.
func BoardTopic(board string) string { return boardTopicPrefix + board }

// ParseBoardTopic returns the board a board topic is about.
func ParseBoardTopic(topic string) (board string, ok bool) {
	board, ok = strings.CutPrefix(topic, boardTopicPrefix)
	return board, ok && ValidateName("board", board) == nil
}

// limiterTopicPrefix + limiter: a limiter's live view (a LimiterView).
const limiterTopicPrefix = "limiter:"

// LimiterTopic is the topic of a limiter's live view.
func LimiterTopic(limiter string) string { return limiterTopicPrefix + limiter }

// ParseLimiterTopic returns the limiter a limiter topic is about.
func ParseLimiterTopic(topic string) (limiter string, ok bool) {
	limiter, ok = strings.CutPrefix(topic, limiterTopicPrefix)
	return limiter, ok && ValidateLimiterName(limiter) == nil
}
