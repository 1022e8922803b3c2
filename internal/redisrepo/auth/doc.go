// Package auth keeps admin sessions and the sign-in attempt counters in Redis
// (domain.AuthStore): a session is recorded under the hash of its random id with the
// browser's fingerprint, in a generation that ending every session replaces, and wrong
// attempts are counted per address in a fixed window by one script.
package auth
