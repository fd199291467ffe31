package shardset

import (
	"sync"
	"testing"
)

type member struct{ n int }

// TestSet: members added from many goroutines are listed once and taken
// by Close once, whatever shard they landed in; removed ones are not;
// after Close nothing is added, and Remove reports what Close took.
func TestSet(t *testing.T) {
	var set Set[*member]
	const n = 200
	ms := make([]*member, n)
	var wg sync.WaitGroup
	for i := range ms {
		ms[i] = &member{i}
		wg.Add(1)
		go func(m *member, drop bool) {
			defer wg.Done()
			r, ok := set.Add(m)
			if !ok || r == 0 {
				t.Errorf("Add = %d, %v before Close", r, ok)
				return
			}
			if drop && !set.Remove(m, r) {
				t.Error("Remove of a member reported false")
			}
			_ = set.All() // concurrent readers
		}(ms[i], i%2 == 0)
	}
	wg.Wait()
	if set.Remove(&member{}, 0) || set.Remove(&member{}, 3) {
		t.Fatal("Remove of a member never added reported true")
	}
	listed := map[*member]int{}
	for _, m := range set.All() {
		listed[m]++
	}
	taken := map[*member]int{}
	for _, m := range set.Close() {
		taken[m]++
	}
	for i, m := range ms {
		want := i % 2
		if listed[m] != want || taken[m] != want {
			t.Fatalf("member %d listed %d and taken %d times, want %d", i, listed[m], taken[m], want)
		}
	}
	if _, ok := set.Add(&member{}); ok {
		t.Fatal("Add after Close succeeded")
	}
	if len(set.Close()) != 0 || len(set.All()) != 0 {
		t.Fatal("members found after Close")
	}
}

// TestCloseRace: Close racing with adds and removes leaves each member
// either removed by its owner or taken by Close, never both nor neither.
func TestCloseRace(t *testing.T) {
	var set Set[*member]
	const n = 100
	ms := make([]*member, n)
	added, removed := make([]bool, n), make([]bool, n)
	var wg sync.WaitGroup
	for i := range ms {
		ms[i] = &member{i}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var r Ref
			if r, added[i] = set.Add(ms[i]); added[i] {
				removed[i] = set.Remove(ms[i], r)
			}
		}(i)
	}
	all := set.Close()
	wg.Wait()
	taken := map[*member]bool{}
	for _, m := range all {
		taken[m] = true
	}
	for i, m := range ms {
		if added[i] && removed[i] == taken[m] {
			t.Fatalf("member %d: removed %v, taken %v", i, removed[i], taken[m])
		}
		if !added[i] && taken[m] {
			t.Fatalf("member %d: refused, yet taken", i)
		}
	}
}

// TestAddRemoveAllocs: once a shard's map has room, adding and removing
// allocate nothing.
func TestAddRemoveAllocs(t *testing.T) {
	var set Set[*member]
	m := &member{}
	for i := range set.shards { // as if each had had a member
		set.shards[i].m = make(map[*member]struct{})
	}
	if n := testing.AllocsPerRun(1000, func() {
		r, _ := set.Add(m)
		set.Remove(m, r)
	}); n != 0 {
		t.Fatalf("Add and Remove allocate %v times", n)
	}
}
