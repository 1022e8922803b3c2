package live

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// BenchmarkFanOut measures one fragment's way from Publish to every subscriber's socket read,
// over real websockets on loopback: ns/op is the time until the last subscriber has it.
func BenchmarkFanOut(b *testing.B) {
	fragment := []byte(`<section id="board-x" class="card">` + strings.Repeat(`<tr><td>1</td><td>player</td><td>1,234</td></tr>`, 10) + `</section>`)
	for _, subscribers := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("subscribers=%d", subscribers), func(b *testing.B) {
			hub, srv, _ := newHubServer(b)
			var got sync.WaitGroup
			for range subscribers {
				c := dial(b, srv, "t")
				go func() {
					for {
						if _, _, err := c.ReadMessage(); err != nil {
							return
						}
						got.Done()
					}
				}()
			}
			waitSubscriptions(b, hub, func() bool { return hubSubscribers(hub, "t") == subscribers })
			b.ResetTimer()
			i := 0
			for b.Loop() {
				i++ // each fragment differs: the hub sends nothing for an equal one
				got.Add(subscribers)
				hub.Publish("t", append([]byte(strconv.Itoa(i)), fragment...))
				got.Wait()
			}
		})
	}
}

func hubSubscribers(h *Hub, topic string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.topics[Subscription{Topic: topic}]; t != nil {
		return len(t.subs)
	}
	return 0
}

func hubClients(h *Hub) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.clients)
}
