package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// The handshake is one call: Options.Timeout bounds all of it (the
// server/discover probe, initialize, logging/setLevel) when Connect's
// context has no deadline. Before, each request had the timeout, and a
// server answering each just within it held Connect for three times it.
func TestHandshakeSharesTheTimeout(t *testing.T) {
	noLeaks(t)
	a, b := transport.Pipe(nil)
	srv := transport.NewConn(b, transport.HandlerFunc(func(ctx context.Context, conn *transport.Conn, r *transport.Request) {
		if r.IsNotification() {
			return
		}
		t := time.NewTimer(150 * time.Millisecond) // the server's slowness, not a synchronization
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
		var res any = rawJSON(`{}`)
		switch r.Method {
		case "server/discover":
			_ = conn.ReplyError(ctx, r, &mcp.Error{Code: mcp.CodeMethodNotFound, Message: "no"})
			return
		case "initialize":
			res = rawJSON(`{"protocolVersion":"2025-11-25","capabilities":{"logging":{}},"serverInfo":{"name":"slow","version":"1"}}`)
		}
		_ = conn.Reply(ctx, r, res)
	}), nil)
	defer srv.Close()
	start := time.Now()
	c, err := client.Connect(context.Background(), a, &client.Options{Timeout: 200 * time.Millisecond, LogLevel: mcp.LevelInfo})
	elapsed := time.Since(start)
	if err == nil {
		c.Close()
	}
	if !errors.Is(err, client.ErrTimeout) {
		t.Fatalf("Connect after %v: %v, want ErrTimeout", elapsed, err)
	}
	if elapsed > 2*time.Second {
		t.Errorf("Connect took %v with a timeout of 200ms", elapsed)
	}
}
