package mcphttp

import (
	"cmp"
	"slices"
	"time"
)

// retainLocked enforces a session's bounds on the events it holds for
// resumption (MaxRetainedStreams, MaxRetainedBytes, RetainFor) after
// pushed, if not nil, grew. Streams that no request serves are dropped,
// the one left longest ago first; a dropped stream's events are freed and
// a client resuming it gets 410. If live streams alone hold more than
// MaxRetainedBytes, pushed loses its oldest events.
func (s *httpSession) retainLocked(pushed *eventStream) {
	o := &s.h.opts
	now := s.h.now()
	type idleStream struct {
		es    *eventStream
		left  time.Time
		seq   uint64
		bytes int64
	}
	var idle []idleStream
	var total int64
	for _, es := range s.streams {
		attached, left, seq, n := es.state()
		total += n
		if !attached {
			idle = append(idle, idleStream{es, left, seq, n})
		}
	}
	if s.standalone != nil {
		_, _, _, n := s.standalone.state()
		total += n
	}
	// Oldest first; the same clock reading is ordered by when it was left,
	// so which stream goes never depends on map order.
	slices.SortFunc(idle, func(a, b idleStream) int {
		if c := a.left.Compare(b.left); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	for i, c := range idle {
		if len(idle)-i <= o.MaxRetainedStreams && total <= o.MaxRetainedBytes && now.Sub(c.left) < o.RetainFor {
			break // sorted by age: the rest are younger
		}
		s.h.log.Debug("mcphttp: dropped a stream nobody reads", s.logRef(), "stream", c.es.id, "bytes", c.bytes)
		delete(s.streams, c.es.id)
		c.es.close()
		total -= c.bytes
	}
	if total > o.MaxRetainedBytes && pushed != nil {
		pushed.trim(total - o.MaxRetainedBytes)
	}
}
