package mcphttp

import (
	"testing"
	"time"
)

// TestSoleAgreesWithSince: what a POST reads from sole is what it read
// from since(0), for a stream empty, holding progress, finished with its
// response alone or after more, trimmed to its history, and closed.
func TestSoleAgreesWithSince(t *testing.T) {
	for _, c := range []struct {
		name  string
		limit int
		push  []bool // final flags of the events pushed
		close bool
	}{
		{"empty", 4, nil, false},
		{"progress", 4, []bool{false}, false},
		{"response alone", 4, []bool{true}, false},
		{"progress then response", 4, []bool{false, true}, false},
		{"trimmed to the response", 1, []bool{false, false, true}, false},
		{"closed", 4, nil, true},
		{"closed after the response", 4, []bool{true}, true},
	} {
		es := newEventStream("s", c.limit, time.Now)
		for _, final := range c.push {
			es.push([]byte(`{}`), final)
		}
		if c.close {
			es.mu.Lock()
			es.closed = true
			es.mu.Unlock()
		}
		evs, done, closed := es.since(0)
		ev, final, some, closedToo := es.sole()
		if final != (len(evs) == 1 && done) || some != (len(evs) > 0) || closedToo != closed || (final && ev.n != evs[0].n) {
			t.Errorf("%s: sole = %v, %v, %v, %v; since(0) = %d events, done %v, closed %v", c.name, ev.n, final, some, closedToo, len(evs), done, closed)
		}
	}
}
