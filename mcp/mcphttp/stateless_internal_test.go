package mcphttp

import (
	"sync"
	"testing"
)

// TestStatelessSet: every session added and not removed is taken by
// closeAll, once, whatever shard it landed in; removed ones are not; after
// closeAll nothing is added, and remove reports what closeAll took.
func TestStatelessSet(t *testing.T) {
	var set statelessSet
	const n = 200
	sessions := make([]*httpSession, n)
	var wg sync.WaitGroup
	for i := range sessions {
		sessions[i] = &httpSession{}
		wg.Add(1)
		go func(s *httpSession, drop bool) {
			defer wg.Done()
			if !set.add(s) {
				t.Error("add refused before closeAll")
				return
			}
			if drop && !set.remove(s) {
				t.Error("remove of a registered session reported false")
			}
		}(sessions[i], i%2 == 0)
	}
	wg.Wait()
	taken := map[*httpSession]bool{}
	for _, s := range set.closeAll() {
		if taken[s] {
			t.Fatal("closeAll returned a session twice")
		}
		taken[s] = true
	}
	for i, s := range sessions {
		if want := i%2 == 1; taken[s] != want {
			t.Fatalf("session %d taken %v, want %v", i, taken[s], want)
		}
		if set.remove(s) {
			t.Fatalf("session %d: remove after closeAll reported true", i)
		}
	}
	if set.add(&httpSession{}) {
		t.Fatal("add after closeAll succeeded")
	}
	if len(set.closeAll()) != 0 {
		t.Fatal("a second closeAll found sessions")
	}
	if (&statelessSet{}).remove(&httpSession{}) {
		t.Fatal("remove of a session never added reported true")
	}
}

// TestStatelessSetRace: closeAll racing with adds and removes leaves each
// session either removed by its request or taken by closeAll, never both
// nor neither.
func TestStatelessSetRace(t *testing.T) {
	var set statelessSet
	const n = 100
	removed := make([]bool, n)
	sessions := make([]*httpSession, n)
	added := make([]bool, n)
	var wg sync.WaitGroup
	for i := range sessions {
		sessions[i] = &httpSession{}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if added[i] = set.add(sessions[i]); added[i] {
				removed[i] = set.remove(sessions[i])
			}
		}(i)
	}
	all := set.closeAll()
	wg.Wait()
	taken := map[*httpSession]bool{}
	for _, s := range all {
		taken[s] = true
	}
	for i, s := range sessions {
		if added[i] && removed[i] == taken[s] {
			t.Fatalf("session %d: removed %v, taken %v", i, removed[i], taken[s])
		}
		if !added[i] && taken[s] {
			t.Fatalf("session %d: refused, yet taken", i)
		}
	}
}
