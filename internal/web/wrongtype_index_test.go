package web

import (
	"net/http"
	"testing"
)

// zpulse's own index keys holding another type (another service's key, or a hand-made one)
// degrade as the boards' and queues' indexes do: the pages and lists answer 200 with what
// they can read and a note, not 409 for everyone.
func TestOwnIndexesOfAnotherTypeDegrade(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"zpulse:index:limiters", "zpulse:index:locks", "zpulse:sources", "zpulse:index:boards", "zpulse:index:queues"} {
		t.Run(k, func(t *testing.T) {
			s := newTestServer(t, "", nil)
			ctx := t.Context()
			s.rdb.Set(ctx, k, "not-an-index", 0)
			if err := s.svc.Discovery.Refresh(ctx); err != nil {
				t.Error(err)
			}
			for _, path := range []string{"/", "/limiters", "/locks", "/sources", "/boards", "/queues",
				"/api/v1/limiters", "/api/v1/locks", "/api/v1/sources", "/api/v1/boards", "/api/v1/queues"} {
				if status, body := s.get(t, path); status != http.StatusOK {
					t.Errorf("GET %s = %d %.200s, want 200", path, status, body)
				}
			}
		})
	}
}
