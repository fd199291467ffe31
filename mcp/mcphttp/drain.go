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
	h.mu.Lock()
	h.draining++
	h.mu.Unlock()
	go func() {
		_ = ss.Wait(context.Background())
		h.mu.Lock()
		h.draining--
		if h.draining == 0 && h.drained != nil {
			close(h.drained)
			h.drained = nil
		}
		h.mu.Unlock()
	}()
}

// awaitHandlers waits until no session has handlers running, or ctx ends.
func (h *Handler) awaitHandlers(ctx context.Context) error {
	h.mu.Lock()
	if h.draining == 0 {
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
