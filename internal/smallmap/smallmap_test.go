package smallmap

import (
	"maps"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestMatchesGoMap runs random operations on a Map and a Go map, and
// checks that they agree after each.
func TestMatchesGoMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var m Map[int]
		want := map[string]int{}
		for i := range 100 {
			k := strconv.Itoa(r.IntN(4))
			switch r.IntN(4) {
			case 0, 1:
				m.Set(k, i)
				want[k] = i
			case 2:
				m.Delete(k)
				delete(want, k)
			case 3:
				// Delete everything in the loop, as Close does.
				for k := range m.All() {
					m.Delete(k)
				}
				clear(want)
			}
			got := maps.Collect(m.All())
			if !maps.Equal(got, want) || m.Len() != len(want) {
				t.Fatalf("after %d operations: %v (Len %d), want %v", i+1, got, m.Len(), want)
			}
			for k, v := range want {
				if g, ok := m.Get(k); !ok || g != v {
					t.Fatalf("Get(%q) = %v, %v; want %v", k, g, ok, v)
				}
			}
			if _, ok := m.Get("absent"); ok {
				t.Fatal("Get of an absent key found it")
			}
		}
	}
}

func TestOneEntryAllocatesNothing(t *testing.T) {
	var m Map[*int]
	v := new(int)
	if n := testing.AllocsPerRun(100, func() {
		m.Set("1", v)
		if _, ok := m.Get("1"); !ok {
			t.Fatal("not found")
		}
		m.Delete("1")
	}); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}

func TestAllStops(t *testing.T) {
	var m Map[int]
	for i := range 5 {
		m.Set(strconv.Itoa(i), i)
	}
	n := 0
	for range m.All() {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("%d iterations, want 2", n)
	}
}
