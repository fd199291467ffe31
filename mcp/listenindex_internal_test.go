package mcp

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
)

// wantsLinear is how a listener was matched before Server.byURI: the
// reference the index must agree with.
func wantsLinear(l *listener, method, uri string) bool {
	switch method {
	case "notifications/tools/list_changed":
		return l.filter.ToolsListChanged
	case "notifications/prompts/list_changed":
		return l.filter.PromptsListChanged
	case "notifications/resources/list_changed":
		return l.filter.ResourcesListChanged
	case "notifications/resources/updated":
		return slices.Contains(l.filter.ResourceSubscriptions, uri)
	}
	return false
}

// listenersLinear matches as notifyListeners did before the index.
func (s *Server) listenersLinear(method, uri string) []*listener {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var to []*listener
	for l := range s.listeners {
		if wantsLinear(l, method, uri) {
			to = append(to, l)
		}
	}
	return to
}

var listenMethods = []string{
	"notifications/tools/list_changed", "notifications/prompts/list_changed",
	"notifications/resources/list_changed", "notifications/resources/updated",
	"notifications/message", "",
}

// listenURIs are the names fuzzed filters and updates draw from: the
// empty URI, names that differ only in case, a trailing slash or an
// escape, and names that are prefixes of others, since matching is
// exact.
var listenURIs = []string{"", "file:///a", "file:///A", "file:///a/", "file:///a/b", "file:///a%2Fb", "file:///ab", "mem://x", "mem://x?y=1", "é"}

// FuzzListenerIndex: whatever listeners open and close, the index finds
// exactly the listeners the linear match found, for every method and URI
// (each listener once, a URI named twice included).
func FuzzListenerIndex(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 0, 4, 5, 1, 0, 9, 9, 2, 1})
	f.Add([]byte{0x10, 1, 1, 1, 0x8f, 0x22, 0, 0x11, 3, 4})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0x80, 0x80, 0, 5})
	f.Fuzz(func(t *testing.T, ops []byte) {
		s := NewServer(&Implementation{Name: "s", Version: "1"}, &ServerOptions{MaxListeners: 1 << 20})
		var open []*listener
		for len(ops) > 0 {
			op := ops[0]
			ops = ops[1:]
			switch {
			case op&0x80 != 0 && len(open) > 0: // close one
				i := int(op&0x7f) % len(open)
				s.removeListener(open[i])
				open = slices.Delete(open, i, i+1)
			default: // open one: flags, then op&0x0f URIs
				l := &listener{filter: SubscriptionFilter{
					ToolsListChanged: op&0x10 != 0, PromptsListChanged: op&0x20 != 0, ResourcesListChanged: op&0x40 != 0}}
				for n := int(op & 0x0f); n > 0 && len(ops) > 0; n-- {
					l.filter.ResourceSubscriptions = append(l.filter.ResourceSubscriptions, listenURIs[int(ops[0])%len(listenURIs)])
					ops = ops[1:]
				}
				if err := s.reserveListener(l); err != nil {
					t.Fatal(err)
				}
				s.addListener(l)
				open = append(open, l)
			}
			for _, m := range listenMethods {
				for _, u := range listenURIs {
					got, want := s.listenersFor(nil, m, u), s.listenersLinear(m, u)
					if !sameListeners(got, want) {
						t.Fatalf("%s %q: index found %d listeners, the linear match %d", m, u, len(got), len(want))
					}
				}
			}
		}
		for _, l := range open {
			s.removeListener(l)
		}
		if len(s.byURI) != 0 || len(s.listeners) != 0 || s.listenCount != 0 {
			t.Fatalf("with every listener closed: %d URIs indexed, %d listeners, %d counted", len(s.byURI), len(s.listeners), s.listenCount)
		}
	})
}

// sameListeners reports whether a and b hold the same listeners, each
// once.
func sameListeners(a, b []*listener) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[*listener]int{}
	for _, l := range a {
		seen[l]++
	}
	for _, l := range b {
		if seen[l] != 1 {
			return false
		}
		seen[l]--
	}
	return true
}

// BenchmarkListenerMatch: the cost of matching one resource update
// against 256 listeners of 1024 URIs each (the default bounds), by a
// linear scan of every filter (before) and by the index (after), for a
// URI one listener asked for and for one nobody did.
func BenchmarkListenerMatch(b *testing.B) {
	const listeners, uris = DefaultMaxListeners, DefaultMaxSubscriptions
	s := NewServer(&Implementation{Name: "s", Version: "1"}, nil)
	for i := range listeners {
		l := &listener{filter: SubscriptionFilter{ResourcesListChanged: true}}
		for j := range uris {
			l.filter.ResourceSubscriptions = append(l.filter.ResourceSubscriptions, "file:///listener"+strconv.Itoa(i)+"/resource"+strconv.Itoa(j))
		}
		if err := s.reserveListener(l); err != nil {
			b.Fatal(err)
		}
		s.addListener(l)
	}
	const method = "notifications/resources/updated"
	for _, tc := range []struct{ name, uri string }{
		{"asked", fmt.Sprintf("file:///listener%d/resource%d", listeners/2, uris-1)},
		{"unasked", "file:///nobody"},
	} {
		b.Run("linear/"+tc.name, func(b *testing.B) {
			for b.Loop() {
				_ = s.listenersLinear(method, tc.uri)
			}
		})
		b.Run("index/"+tc.name, func(b *testing.B) {
			for b.Loop() {
				_ = s.listenersFor(nil, method, tc.uri)
			}
		})
	}
}

// BenchmarkListenerOpenClose: what the index costs a listener of 1024
// URIs instead, once as it opens and once as it closes, beside 255 others.
func BenchmarkListenerOpenClose(b *testing.B) {
	const listeners, uris = DefaultMaxListeners, DefaultMaxSubscriptions
	s := NewServer(&Implementation{Name: "s", Version: "1"}, nil)
	filter := func(i int) SubscriptionFilter {
		f := SubscriptionFilter{}
		for j := range uris {
			f.ResourceSubscriptions = append(f.ResourceSubscriptions, "file:///listener"+strconv.Itoa(i)+"/resource"+strconv.Itoa(j))
		}
		return f
	}
	for i := range listeners - 1 {
		l := &listener{filter: filter(i)}
		if err := s.reserveListener(l); err != nil {
			b.Fatal(err)
		}
		s.addListener(l)
	}
	f := filter(listeners)
	b.ReportAllocs()
	for b.Loop() {
		l := &listener{filter: f}
		if err := s.reserveListener(l); err != nil {
			b.Fatal(err)
		}
		s.addListener(l)
		s.removeListener(l)
	}
}
