package mcp

import "sync"

// coalescer sends notifications that say only "this changed" (a list, a
// resource) without piling them up behind a client that reads slowly or
// not at all: per key, at most one send is under way, and changes that
// arrive meanwhile become a single further send once it ends. No change
// is lost (the last send starts after the last change), and a session
// costs at most one goroutine per key however often things change. The
// keys are the list_changed methods and the subscribed URIs, both bounded.
type coalescer struct {
	mu    sync.Mutex
	state map[string]bool // key → another send is due after the current one
	// holding: posts wait in held (one per key, the last) until release.
	holding bool
	held    map[string]func()
}

// hold makes posts wait until release: a subscription's changes are
// posted from the moment it is registered, and sent only after its
// acknowledgement, which must be the stream's first message.
func (q *coalescer) hold() {
	q.mu.Lock()
	q.holding = true
	q.mu.Unlock()
}

// release posts what waited since hold, and stops holding.
func (q *coalescer) release() {
	q.mu.Lock()
	q.holding = false
	held := q.held
	q.held = nil
	q.mu.Unlock()
	for key, send := range held {
		q.post(key, send)
	}
}

// post runs send on its own goroutine unless a send for key is already
// under way, in which case it asks that one to go once more.
func (q *coalescer) post(key string, send func()) {
	q.mu.Lock()
	if q.holding {
		if q.held == nil {
			q.held = map[string]func(){}
		}
		q.held[key] = send
		q.mu.Unlock()
		return
	}
	if _, busy := q.state[key]; busy {
		q.state[key] = true
		q.mu.Unlock()
		return
	}
	if q.state == nil {
		q.state = map[string]bool{}
	}
	q.state[key] = false
	q.mu.Unlock()
	go func() {
		for {
			send()
			q.mu.Lock()
			if q.state[key] {
				q.state[key] = false
				q.mu.Unlock()
				continue
			}
			delete(q.state, key)
			q.mu.Unlock()
			return
		}
	}()
}
