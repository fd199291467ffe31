package logrec

import (
	"context"
	"log/slog"
	"sync"
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
