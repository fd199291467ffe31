package mcphttp_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// cleanupServer has a tool "tree" that runs until cancelled and then takes
// cleanup to finish (a tool killing its process tree), counting the calls
// that finished their cleanup.
func cleanupServer(shutdownTimeout, cleanup time.Duration, started chan<- struct{}, finished *atomic.Int32) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tree", Version: "1"}, &mcp.ServerOptions{Logger: quietLog, ShutdownTimeout: shutdownTimeout})
	mcp.AddTool(srv, &mcp.Tool{Name: "tree", Description: "Runs until cancelled."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			started <- struct{}{}
			<-ctx.Done()
			// The work a cancelled tool still has to do; not
			// synchronisation: it is what Shutdown must wait for.
			time.Sleep(cleanup)
			finished.Add(1)
			return nil, nil, ctx.Err()
		})
	return srv
}

// TestShutdownWaitsForHandlers: Shutdown cancels the handlers of every
// session, stateful and stateless, and returns only once they returned,
// as mcp.Server.Run does on stdio. Before, it returned as soon as the
// HTTP requests had, and a program exiting then left process trees
// running.
func TestShutdownWaitsForHandlers(t *testing.T) {
	started := make(chan struct{}, 4)
	var finished atomic.Int32
	srv := cleanupServer(10*time.Second, 200*time.Millisecond, started, &finished)
	h := mcphttp.NewHandler(srv, &mcphttp.HandlerOptions{Logger: quietLog})
	ts := httptest.NewServer(h)
	defer ts.Close()
	url := ts.URL + "/mcp"

	c, _ := dialHTTP(t, url, nil)
	const sessionCalls = 2
	for range sessionCalls {
		go c.CallTool(context.Background(), "tree", map[string]any{})
	}
	stateless := func(id int) {
		resp := rawPost(t, url, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"tools/call","params":{"name":"tree","arguments":{},"_meta":{`+
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			map[string]string{mcphttp.HeaderProtocolVersion: mcp.Version20260728, mcphttp.HeaderMethod: "tools/call", mcphttp.HeaderName: "tree"})
		resp.Body.Close()
	}
	go stateless(7)
	for range sessionCalls + 1 {
		<-started
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if n := finished.Load(); n != sessionCalls+1 {
		t.Fatalf("Shutdown returned with %d of %d cancelled handlers finished", n, sessionCalls+1)
	}
}

// TestShutdownWaitBounded: a handler that ignores cancellation holds
// Shutdown no longer than the server's ShutdownTimeout.
func TestShutdownWaitBounded(t *testing.T) {
	started := make(chan struct{}, 1)
	var finished atomic.Int32
	srv := cleanupServer(100*time.Millisecond, 3*time.Second, started, &finished)
	h := mcphttp.NewHandler(srv, &mcphttp.HandlerOptions{Logger: quietLog})
	ts := httptest.NewServer(h)
	defer ts.Close()
	c, _ := dialHTTP(t, ts.URL+"/mcp", nil)
	go c.CallTool(context.Background(), "tree", map[string]any{})
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	begin := time.Now()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if d := time.Since(begin); d > 2*time.Second || finished.Load() != 0 {
		t.Fatalf("Shutdown took %v (finished %d); the handler should have been given up after 100ms", d, finished.Load())
	}
	// And ctx still bounds it: a second handler, a context shorter than
	// the handler, on a server with no shutdown limit of its own.
	srv2 := cleanupServer(time.Hour, 3*time.Second, started, &finished)
	h2 := mcphttp.NewHandler(srv2, &mcphttp.HandlerOptions{Logger: quietLog})
	ts2 := httptest.NewServer(h2)
	defer ts2.Close()
	c2, _ := dialHTTP(t, ts2.URL+"/mcp", nil)
	go c2.CallTool(context.Background(), "tree", map[string]any{})
	<-started
	short, cancel2 := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel2()
	if err := h2.Shutdown(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown with a short context: %v, want DeadlineExceeded", err)
	}
}
