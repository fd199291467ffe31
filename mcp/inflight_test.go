package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/logrec"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// While its handlers wait on the client, a full session answers further
// requests with CodeServerBusy instead of ceasing to read: the responses
// those handlers wait for come in behind them.
func TestFullSessionWaitingOnClientAnswersBusy(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{MaxInFlight: 2})
	mcp.AddTool(srv, &mcp.Tool{Name: "roots"}, func(ctx context.Context, r *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		res, err := r.ListRoots(ctx)
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "roots: " + string(rune('0'+len(res.Roots)))}}}, nil, nil
	})
	w := initializedWire(t, srv, `{"roots":{}}`)

	var asks []json.RawMessage
	for i := 1; i <= 2; i++ {
		w.send(`{"jsonrpc":"2.0","id":` + string(rune('0'+i)) + `,"method":"tools/call","params":{"name":"roots","arguments":{}}}`)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		line := w.recv()
		if err := json.Unmarshal([]byte(line), &req); err != nil || req.Method != "roots/list" {
			t.Fatalf("want roots/list, got %s", line)
		}
		asks = append(asks, req.ID)
	}
	// Both slots are held by handlers that wait on us.
	w.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"roots","arguments":{}}}`)
	if got := w.recv(); !strings.Contains(got, `"id":3,"error":{"code":-32010,`) {
		t.Fatalf("third call with two slots held: got %s, want a busy error", got)
	}
	for _, id := range asks {
		w.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"roots":[]}}`)
	}
	for range 2 {
		if got := w.recv(); !strings.Contains(got, `"roots: 0"`) {
			t.Errorf("call answered %s", got)
		}
	}
	// Slots are free again.
	w.send(`{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	if got := w.recv(); got != `{"jsonrpc":"2.0","id":4,"result":{}}` {
		t.Errorf("ping: %s", got)
	}
}

// A handler that ignores its context holds Run up for ShutdownTimeout at
// most; then Run returns and says so in the log.
func TestRunShutdownTimeoutBoundsTheWait(t *testing.T) {
	sink := &logrec.Sink{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"},
		&mcp.ServerOptions{ShutdownTimeout: 50 * time.Millisecond, Logger: slog.New(sink)})
	started, release := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(release) })
	mcp.AddTool(srv, &mcp.Tool{Name: "stubborn"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		close(started)
		<-release // ignores its context
		return &mcp.CallToolResult{}, nil, nil
	})
	a, b := net.Pipe()
	defer a.Close()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(ctx, transport.NewStream(transport.NewLineFramer(b, 0), nil)) }()
	w := &wire{t: t, conn: a, r: bufio.NewReader(a)}
	w.send(initLine)
	w.recv()
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stubborn","arguments":{}}}`)
	<-started
	cancel()
	select {
	case err := <-ran:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run waited past its shutdown timeout")
	}
	found := false
	for _, r := range sink.All() {
		if strings.Contains(r["msg"], "still running after the shutdown timeout") && r["count"] == "1" {
			found = true
		}
	}
	if !found {
		t.Errorf("no warning logged: %v", sink.All())
	}
}
