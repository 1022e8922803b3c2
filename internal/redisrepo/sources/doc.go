// Package sources keeps the adopted sources, keys another service writes in a layout of its
// own (a board, a queue, a lock or a limiter family), and reads them as zpulse's panels do
// (domain.SourceView), on the same pipeline as every other topic.
package sources
