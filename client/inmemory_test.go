package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
)

// ConnectServer speaks to a server in this process in both protocol eras,
// and closing the client ends the server's session: none is left behind,
// whether the handshake succeeded or failed.
func TestConnectServer(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greets."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct {
			Name string `json:"name"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + in.Name}}}, nil, nil
		})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		c, err := client.ConnectServer(ctx, srv, &client.Options{ProtocolVersion: v})
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		res, err := c.CallTool(ctx, "greet", map[string]any{"name": "go"})
		if err != nil || res.TextOf() != "hello go" {
			t.Fatalf("%s: %v, %v", v, res, err)
		}
		if got := c.ProtocolVersion(); got != v {
			t.Errorf("protocol version %q, want %q", got, v)
		}
		sessions := srv.Sessions()
		if len(sessions) != 1 {
			t.Fatalf("%s: %d server sessions, want 1", v, len(sessions))
		}
		c.Close()
		select {
		case <-sessions[0].Done():
		case <-ctx.Done():
			t.Fatalf("%s: the server's session outlived its client", v)
		}
	}
	// A handshake that fails (its context ended) closes the pipe, and
	// with it the server's session.
	dead, kill := context.WithCancel(ctx)
	kill()
	if _, err := client.ConnectServer(dead, srv, nil); err == nil {
		t.Fatal("a handshake with an ended context succeeded")
	}
	for _, ss := range srv.Sessions() {
		select {
		case <-ss.Done():
		case <-ctx.Done():
			t.Fatal("the server's session outlived a failed handshake")
		}
	}
}
