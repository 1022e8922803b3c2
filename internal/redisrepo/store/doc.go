// Package store is the Redis adapter's plumbing that every room shares: Keys (keys.go, where
// every key zpulse reads or writes is built), scripts made with NewScript and run through
// Exec (with the NOSCRIPT retry), the errors that name the operation (OpError), the clocks,
// discovery of names by bounded SCAN and by keyspace notifications, replica waits and the
// command-error counters.
package store
