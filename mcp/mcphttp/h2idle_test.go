package mcphttp_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// An SSE stream that idles longer than WriteTimeout between events, its
// client reading all along, is not cut over HTTP/2. WriteTimeout bounds
// each write; over HTTP/1.1 a deadline that passes with no write in
// progress does nothing (the next write sets its own), but over HTTP/2
// the stream's write deadline is a timer that resets the stream when it
// fires, whether or not a write is in progress. With keep-alives off (or
// further apart than WriteTimeout), a healthy stream was reset
// WriteTimeout after its last event.
func TestHTTP2IdleStreamOutlivesWriteTimeout(t *testing.T) {
	const writeTimeout = 100 * time.Millisecond
	release := make(chan struct{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "idle", Version: "1"}, &mcp.ServerOptions{Logger: quietLog})
	mcp.AddTool(srv, &mcp.Tool{Name: "idle", Description: "Reports progress, then idles until released."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, sumOut, error) {
			if err := req.Progress(ctx, 1, 2, "started"); err != nil {
				return nil, sumOut{}, err
			}
			select {
			case <-release:
			case <-ctx.Done():
				return nil, sumOut{}, ctx.Err()
			}
			return nil, sumOut{Sum: 42}, nil
		})
	url, hc := serveH2(t, srv, &mcphttp.HandlerOptions{WriteTimeout: writeTimeout, KeepAlive: -1}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"idle","arguments":{},"_meta":{"progressToken":"p",` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	resp, err := hc.Do(statelessCall(t, ctx, url, "idle", strings.NewReader(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("answered over %s: %s %s, want a 200 SSE stream over HTTP/2", resp.Proto, resp.Status, resp.Header.Get("Content-Type"))
	}
	lines := make(chan string)
	ended := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if !strings.HasPrefix(sc.Text(), "data: {") {
				continue // the event's other fields, and the lines between events
			}
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		err := sc.Err()
		if err == nil {
			err = io.EOF
		}
		ended <- err
	}()
	next := func(what string) string {
		t.Helper()
		for {
			select {
			case l := <-lines:
				return l
			case err := <-ended:
				t.Fatalf("the stream ended (%v) before %s", err, what)
			case <-ctx.Done():
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	if l := next("the progress event"); !strings.Contains(l, "notifications/progress") {
		t.Fatalf("first event %s, want progress", l)
	}
	// The client keeps reading while the call idles, well past
	// WriteTimeout: nothing is written, so no write is late.
	select {
	case l := <-lines:
		t.Fatalf("an event while the call idles: %s", l)
	case err := <-ended:
		t.Fatalf("the stream ended (%v) while the call idled, its client reading", err)
	case <-time.After(5 * writeTimeout):
	}
	close(release)
	if l := next("the result"); !strings.Contains(l, `"sum":42`) {
		t.Fatalf("final event %s, want the result", l)
	}
}
