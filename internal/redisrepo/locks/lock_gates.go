package locks

import (
	"sync"
)

// gates queue the waiters of this process per lock name (see acquire).
type gates struct {
	mu sync.Mutex
	m  map[string]*gate
}

type gate struct {
	poller chan struct{} // capacity 1: held by the waiter that polls Redis
	freed  chan struct{} // capacity 1: a release in this process wakes the poller
	refs   int
}

func (gs *gates) enter(name string) *gate {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	if gs.m == nil {
		gs.m = map[string]*gate{}
	}
	g := gs.m[name]
	if g == nil {
		g = &gate{poller: make(chan struct{}, 1), freed: make(chan struct{}, 1)}
		gs.m[name] = g
	}
	g.refs++
	return g
}

func (gs *gates) leave(name string, g *gate) {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	if g.refs--; g.refs == 0 {
		delete(gs.m, name)
	}
}

// freed wakes the poller of name, if this process has one.
func (gs *gates) freed(name string) {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	if g := gs.m[name]; g != nil {
		select {
		case g.freed <- struct{}{}:
		default:
		}
	}
}
