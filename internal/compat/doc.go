// Package compat holds the reference articles' code, written in Go as the articles write it
// in Java and pseudo-code, so the compatibility suite (compat_test.go) can run a service built
// from the articles beside zpulse on one real Redis and assert both directions: what the
// article's service writes, zpulse shows; what zpulse writes, the article's service sees.
//
// Nothing here is zpulse: each type names the article section it copies, its keys and
// encodings are the articles' own, and its clock is injected (now in epoch ms), as the main
// article's SlidingWindowRateLimiter injects a java.time.Clock.
package compat
