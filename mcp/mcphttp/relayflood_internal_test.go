package mcphttp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// Relayed cancellations of a session whose read loop is not reading (its
// in-flight slots are all taken, and a request read from the relay waits
// for one) each waited relayTimeout on a goroutine of their own: a client
// POSTing cancellations to another replica as fast as it answers 202
// parked goroutines here without bound. At most maxRelaying of a
// session's relayed messages wait; others are dropped.
func TestRelayedMessagesWaitingAreBounded(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := mcp.NewServer(&mcp.Implementation{Name: "relay", Version: "1"}, &mcp.ServerOptions{Logger: quiet, MaxInFlight: 1})
	running, release := make(chan struct{}), make(chan struct{})
	srv.AddTool(&mcp.Tool{Name: "hold", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(running)
			select {
			case <-release:
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{}, nil
		})
	relay := &MemoryRelay{}
	h := NewHandler(srv, &HandlerOptions{Logger: quiet, Relay: relay})
	ts := httptest.NewServer(h)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		ts.Close()
	}()
	post := func(body string, hdr map[string]string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return nil
		}
		return resp
	}
	resp := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, nil)
	resp.Body.Close()
	sid := resp.Header.Get(HeaderSessionID)
	hdr := map[string]string{HeaderSessionID: sid, HeaderProtocolVersion: mcp.Version20251125}
	called := make(chan struct{})
	go func() {
		defer close(called)
		if resp := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{}}}`, hdr); resp != nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	<-running // the session's one in-flight slot is taken
	s := h.session(sid)
	// A request from another replica (a replayed state change) waits on
	// the read loop for the slot: the read loop reads nothing meanwhile.
	replayed := make(chan bool, 1)
	go func() {
		replayed <- s.deliver(context.Background(), []byte(`{"jsonrpc":"2.0","id":"r1","method":"ping"}`))
	}()
	if !<-replayed {
		t.Fatal("the session ended")
	}
	before := runtime.NumGoroutine()
	const flood = 500
	for i := range flood {
		msg, _ := json.Marshal(relayed{From: "other-", Session: sid,
			Msg: json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + strings.Repeat("9", 1+i%5) + `}}`)})
		_ = relay.Send(context.Background(), msg)
	}
	// Goroutines that deliver at once end at once; those that wait, wait
	// relayTimeout. Polled for less than that, with the read loop held.
	grown := runtime.NumGoroutine() - before
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(relayTimeout / 2); grown > flood/4 && time.Now().Before(deadline); <-tick.C {
		grown = runtime.NumGoroutine() - before
	}
	close(release)
	<-called
	if grown > flood/4 {
		t.Fatalf("%d relayed cancellations left %d more goroutines waiting", flood, grown)
	}
}
