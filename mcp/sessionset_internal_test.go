package mcp

import (
	"sync"
	"testing"
)

// TestSessionSet: sessions added from many goroutines are all listed once,
// removed ones are not, and removing one never added is harmless.
func TestSessionSet(t *testing.T) {
	var set sessionSet
	const n = 200
	sessions := make([]*ServerSession, n)
	var wg sync.WaitGroup
	for i := range sessions {
		sessions[i] = &ServerSession{}
		wg.Add(1)
		go func(ss *ServerSession, drop bool) {
			defer wg.Done()
			set.add(ss)
			if drop {
				set.remove(ss)
			}
			_ = set.all() // concurrent readers
		}(sessions[i], i%3 == 0)
	}
	wg.Wait()
	set.remove(&ServerSession{})
	listed := map[*ServerSession]int{}
	for _, ss := range set.all() {
		listed[ss]++
	}
	for i, ss := range sessions {
		want := 1
		if i%3 == 0 {
			want = 0
		}
		if listed[ss] != want {
			t.Fatalf("session %d listed %d times, want %d", i, listed[ss], want)
		}
	}
}
