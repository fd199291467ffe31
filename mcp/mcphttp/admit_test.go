package mcphttp_test

import (
	"context"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// waitingForSlot counts goroutines queued for a session's in-flight slot.
func waitingForSlot() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), "mcp.(*ServerSession).admit(")
}

// A legacy request queued for an in-flight slot (ServerOptions.MaxInFlight)
// whose client walks away is dropped with its POST, as it was when it queued
// on the session's stream: it must not hold the POST's goroutine and body
// until a slot frees, uncounted by the handler's MaxInFlight.
func TestHTTPDirectQueuedAbandoned(t *testing.T) {
	release := make(chan struct{})
	srv2 := mcp.NewServer(&mcp.Implementation{Name: "hold", Version: "1"}, &mcp.ServerOptions{Logger: quietLog, MaxInFlight: 1})
	mcp.AddTool(srv2, &mcp.Tool{Name: "hold", Description: "Holds."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct {
			Key string `json:"key"`
		}) (*mcp.CallToolResult, any, error) {
			_ = req.Progress(ctx, 1, 2, "holding "+in.Key)
			select {
			case <-release:
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{}, nil, nil
		})
	_, url := serveHTTP(t, srv2, nil)
	sid := openSession(t, url)
	rawPost(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, sessionHeaders(sid)).Body.Close()
	s := openSSE(t, http.MethodPost, url, holdCall("1", "k1"), sessionHeaders(sid))
	for {
		if ev := s.event(t); len(ev) > 0 && strings.Contains(ev[len(ev)-1], "holding k1") {
			break // k1 holds the session's only slot
		}
	}
	defer close(release)
	base := waitingForSlot()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(holdCall("2", "k2")))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range sessionHeaders(sid) {
		req.Header.Set(k, v)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for waitingForSlot() == base {
		if time.Now().After(deadline) {
			t.Fatal("k2 never queued for a slot")
		}
		runtime.Gosched()
	}
	cancel()
	<-done
	for waitingForSlot() > base {
		if time.Now().After(deadline) {
			t.Fatal("k2 still waits for a slot after its client walked away")
		}
		runtime.Gosched()
	}
}
