package logrec

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
)

// Sink is a slog.Handler that keeps each record's message (under "msg")
// and attributes as strings. Its zero value is ready to use.
type Sink struct {
	mu   sync.Mutex
	recs []map[string]string
}

// Enabled reports true: a Sink keeps every level.
func (s *Sink) Enabled(context.Context, slog.Level) bool { return true }

// WithAttrs returns s; attributes added this way are not kept.
func (s *Sink) WithAttrs([]slog.Attr) slog.Handler { return s }

// WithGroup returns s; groups are not kept.
func (s *Sink) WithGroup(string) slog.Handler { return s }

// Handle keeps r.
func (s *Sink) Handle(_ context.Context, r slog.Record) error {
	m := map[string]string{"msg": r.Message}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	s.mu.Lock()
	s.recs = append(s.recs, m)
	s.mu.Unlock()
	return nil
}

// All returns the records kept so far, oldest first.
func (s *Sink) All() []map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]string(nil), s.recs...)
}

// Counter is a slog.Handler that counts the records at Min and above and
// keeps nothing else: for tests that log floods, where a Sink would hold
// every record. Its zero value counts every level from Info up.
type Counter struct {
	Min slog.Level
	n   atomic.Int64
}

// Enabled reports true: a Counter sees every level.
func (c *Counter) Enabled(context.Context, slog.Level) bool { return true }

// WithAttrs returns c; attributes are not kept.
func (c *Counter) WithAttrs([]slog.Attr) slog.Handler { return c }

// WithGroup returns c; groups are not kept.
func (c *Counter) WithGroup(string) slog.Handler { return c }

// Handle counts r if it is at Min or above.
func (c *Counter) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= c.Min {
		c.n.Add(1)
	}
	return nil
}

// Count returns the records counted so far.
func (c *Counter) Count() int64 { return c.n.Load() }
