package closinglog

import (
	"context"
	"log/slog"
	"sync"
)

// Handler passes records to the handler it wraps until Close. Handlers
// derived from it (WithAttrs, WithGroup) share its state: Close silences
// them all.
type Handler struct {
	next slog.Handler
	g    *gate
}

// gate is what a Handler and the handlers derived from it share. Close
// takes mu to write, so it waits for records being handled, never for
// the goroutines that log them.
type gate struct {
	mu     sync.RWMutex
	closed bool
}

// New wraps h.
func New(h slog.Handler) *Handler { return &Handler{next: h, g: &gate{}} }

// Enabled reports what the wrapped handler does: a record dropped after
// Close costs its formatting, as one below the level would not.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

// Handle passes r on unless the handler was closed.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	h.g.mu.RLock()
	defer h.g.mu.RUnlock()
	if h.g.closed {
		return nil
	}
	return h.next.Handle(ctx, r)
}

func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	return &Handler{next: h.next.WithAttrs(as), g: h.g}
}

func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{next: h.next.WithGroup(name), g: h.g}
}

// Close silences h and the handlers derived from it, once any record
// being handled is written. Closing again does nothing.
func (h *Handler) Close() {
	h.g.mu.Lock()
	h.g.closed = true
	h.g.mu.Unlock()
}
