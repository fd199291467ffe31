package client_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/transport"
)

// A Connect that fails silences Options.Logger before it returns, as
// Close does: the connection's read loop may be logging as the handshake
// gives up, and the caller may let go of the logger once Connect has
// returned. Here the server answers the handshake with a message the
// client refuses, and logs, and then with nothing; the handshake times
// out while that record is being written.
func TestNoLogAfterFailedConnect(t *testing.T) {
	noLeaks(t)
	big := strings.Repeat("x", 64<<10)
	for i := range 3 {
		a, b := transport.Pipe(nil)
		srvConn := transport.NewConn(a, transport.HandlerFunc(func(ctx context.Context, c *transport.Conn, r *transport.Request) {
			if r.Method == "server/discover" {
				// Past the client's MaxResultMemory: refused and logged.
				_ = c.Notify(ctx, "notifications/message", map[string]any{"level": "info", "data": big})
			}
		}), nil)
		h := &afterClose{returned: make(chan struct{}), done: make(chan struct{}, 4)}
		h.closing.Store(true) // every record is held until Connect returns
		ctx, cancel := context.WithTimeout(context.Background(), holdLimit/4)
		_, err := client.Connect(ctx, b, &client.Options{Logger: slog.New(h), MaxResultMemory: 4 << 10})
		close(h.returned)
		cancel()
		if err == nil {
			t.Fatal("Connect succeeded with a server that never answers")
		}
		select {
		case <-h.done:
		case <-time.After(10 * time.Second):
			t.Fatal("the refused message was never logged")
		}
		srvConn.Close()
		if n := h.late.Load(); n > 0 {
			t.Fatalf("run %d: %d records written after Connect returned, the last %q", i, n, h.last.Load())
		}
	}
}
