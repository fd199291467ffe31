package mcp_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// TestSessionWait: Wait returns once the session has ended and its
// cancelled handlers have returned; before the end only ctx stops it, and
// a handler that ignores cancellation holds it at most ShutdownTimeout.
func TestSessionWait(t *testing.T) {
	for _, tc := range []struct {
		name     string
		timeout  time.Duration
		cleanup  time.Duration
		want     error
		finished int32
	}{
		{"waits", 10 * time.Second, 100 * time.Millisecond, nil, 1},
		{"bounded", 50 * time.Millisecond, time.Second, mcp.ErrHandlersRunning, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			started := make(chan struct{}, 1)
			var finished atomic.Int32
			s := mcp.NewServer(&mcp.Implementation{Name: "w", Version: "1"}, &mcp.ServerOptions{ShutdownTimeout: tc.timeout, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			mcp.AddTool(s, &mcp.Tool{Name: "tree", Description: "Runs until cancelled."},
				func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
					started <- struct{}{}
					<-ctx.Done()
					time.Sleep(tc.cleanup) // the work a cancelled tool still does
					finished.Add(1)
					return nil, nil, ctx.Err()
				})
			a, b := transport.Pipe(nil)
			ss := s.Connect(a)
			c, err := client.Connect(context.Background(), b, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			go c.CallTool(context.Background(), "tree", nil)
			<-started
			short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			if err := ss.Wait(short); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Wait before the session ended: %v, want DeadlineExceeded", err)
			}
			ss.Close()
			if err := ss.Wait(context.Background()); !errors.Is(err, tc.want) {
				t.Fatalf("Wait: %v, want %v", err, tc.want)
			}
			if n := finished.Load(); n != tc.finished {
				t.Fatalf("Wait returned with %d handlers finished, want %d", n, tc.finished)
			}
		})
	}
}
