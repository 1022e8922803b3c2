// Package domain is zpulse's model, free of infrastructure: the types of boards, queues,
// limiters, locks and adopted sources, their validation and the errors with their codes
// (Errorf, ErrorCode), the service interfaces the HTTP layer calls and the Redis adapter
// implements, score encodings (TieBreak), periods and seasons, live topic names, the audience
// that decides which secrets a reader sees, and the injected Clock. It imports nothing of the
// project.
package domain
