package smallmap

import "iter"

// Map is a map from strings to V, for use as a Go map is used: its zero
// value is empty and ready, and it is not safe for concurrent use.
type Map[V any] struct {
	key  string
	val  V
	used bool         // key and val hold an entry
	more map[string]V // the other entries, made at the second
}

// Get returns the value of k, and whether it is there.
func (m *Map[V]) Get(k string) (V, bool) {
	if m.used && m.key == k {
		return m.val, true
	}
	v, ok := m.more[k]
	return v, ok
}

// Set sets the value of k.
func (m *Map[V]) Set(k string, v V) {
	switch _, inMore := m.more[k]; {
	case m.used && m.key == k:
		m.val = v
	case !m.used && !inMore:
		m.key, m.val, m.used = k, v, true
	default:
		if m.more == nil {
			m.more = map[string]V{}
		}
		m.more[k] = v
	}
}

// Delete removes k, if it is there.
func (m *Map[V]) Delete(k string) {
	if m.used && m.key == k {
		var zero V
		m.key, m.val, m.used = "", zero, false
		return
	}
	delete(m.more, k)
}

// Len returns the number of entries.
func (m *Map[V]) Len() int {
	n := len(m.more)
	if m.used {
		n++
	}
	return n
}

// All yields every entry, in no particular order. The loop may delete
// entries, as a range over a Go map may.
func (m *Map[V]) All() iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		if m.used && !yield(m.key, m.val) {
			return
		}
		for k, v := range m.more {
			if !yield(k, v) {
				return
			}
		}
	}
}
