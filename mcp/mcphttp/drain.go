package mcphttp

import (
	"context"

	"github.com/winbridge/winbridge/mcp"
)

// Handlers outlive their HTTP requests: a session ended by DELETE, idle
// expiry, a stateless POST whose client went away, or Shutdown has its
// handlers cancelled, and a tool may still be killing a process tree. The
// Handler counts every session until its handlers have returned, so that
// Shutdown can wait for them as mcp.Server.Run does on stdio.

// track counts ss until it has ended and its handlers have returned (at
// most the server's ShutdownTimeout after its end; see
// mcp.ServerSession.Wait).
func (h *Handler) track(ss *mcp.ServerSession) {
	h.tracking()
	go h.untrack(ss)
}

// tracking counts a session whose handlers may run; untrack, called
// once for it, waits for them and stops counting it. A stateless
// session is untracked by endLater's goroutine, which has ended it: a
// goroutine of its own per request would cost more than the wait.
func (h *Handler) tracking() { h.draining.Add(1) }

// untrack waits for ss's handlers and stops counting it. Only a drop to 0
// after Shutdown began takes the lock, to wake awaitHandlers: before it,
// awaitHandlers finds the count at 0 itself.
func (h *Handler) untrack(ss *mcp.ServerSession) {
	_ = ss.Wait(context.Background())
	if h.draining.Add(-1) != 0 || !h.closing.Load() {
		return
	}
	h.mu.Lock()
	if h.drained != nil && h.draining.Load() == 0 {
		close(h.drained)
		h.drained = nil
	}
	h.mu.Unlock()
}

// awaitHandlers waits until no session has handlers running, or ctx ends.
func (h *Handler) awaitHandlers(ctx context.Context) error {
	h.mu.Lock()
	if h.draining.Load() == 0 {
		h.mu.Unlock()
		return nil
	}
	if h.drained == nil {
		h.drained = make(chan struct{})
	}
	drained := h.drained
	h.mu.Unlock()
	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
