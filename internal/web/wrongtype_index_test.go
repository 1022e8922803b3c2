package web

import (
	"net/http"
	"strings"
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
			// The pages say which key and why; once it is a set (or gone) again, the note goes.
			if _, body := s.get(t, "/"); !strings.Contains(body, `data-testid="index-note"`) || !strings.Contains(body, "index key "+k+" holds another Redis type") {
				t.Errorf("/ does not note %s", k)
			}
			s.rdb.Del(ctx, k)
			s.get(t, "/api/v1/limiters")
			s.get(t, "/api/v1/locks")
			s.get(t, "/api/v1/sources")
			if err := s.svc.Discovery.Refresh(ctx); err != nil {
				t.Error(err)
			}
			if _, body := s.get(t, "/"); strings.Contains(body, `data-testid="index-note"`) {
				t.Errorf("/ still notes %s once it is gone", k)
			}
		})
	}
}
