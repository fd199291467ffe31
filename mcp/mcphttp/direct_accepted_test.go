package mcphttp

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// A stateless (2026-07-28) request answered with 202 can never be answered:
// there is no session, no GET stream and no other stream to carry it. The
// call fails at once instead of waiting for its deadline (here none).
func TestDirectStatelessAccepted(t *testing.T) {
	directLeaks(t)
	c, _ := directConn(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	}, nil, &transport.ConnOptions{Timeout: -1}, nil)
	done := make(chan error, 1)
	go func() {
		done <- c.Call(context.Background(), "tools/list", map[string]any{
			"_meta": map[string]any{mcp.MetaProtocolVersion: mcp.Version20260728, mcp.MetaClientCapabilities: map[string]any{}},
		}, nil)
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "202") {
			t.Fatalf("Call: %v; want the 202 as the call's error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a stateless call answered with 202 waits for a response that cannot come")
	}
}
