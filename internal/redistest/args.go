package redistest

import "testing"

// StartArgs starts a redis-server of the test's own, like Start, with extra arguments after
// the defaults (e.g. "--rename-command", "CONFIG", "" plays a managed Redis that refuses
// CONFIG), and stops it at the test's end. For a test that changes what a server shares with
// every client (its settings, CLIENT KILL), so that it disturbs no other test.
func StartArgs(t testing.TB, args ...string) *Server {
	t.Helper()
	s, err := startServer(nil, args)
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}
