package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

// Our client and server over HTTP, in every era: list, call, progress
// delivered over the request's SSE stream before the result.
func TestHTTPClientServerEras(t *testing.T) {
	for _, v := range []string{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		t.Run(v, func(t *testing.T) {
			h, url := serveHTTP(t, httpTestServer(), nil)
			c, f := dialHTTP(t, url, &client.Options{ProtocolVersion: v})
			if got := c.ProtocolVersion(); got != v {
				t.Fatalf("negotiated %q, want %q", got, v)
			}
			stateless := mcp.IsStateless(v)
			if (f.SessionID() == "") != stateless || (h.SessionCount() == 0) != stateless {
				t.Fatalf("session id %q, %d sessions: want a session only in the legacy era", f.SessionID(), h.SessionCount())
			}
			ctx := context.Background()
			tools, err := c.ListTools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools {
				names = append(names, tool.Name)
			}
			if !slices.Equal(names, []string{"ask", "count", "sum"}) {
				t.Fatalf("tools %v", names)
			}
			res, err := c.CallTool(ctx, "sum", map[string]float64{"a": 20, "b": 22})
			if err != nil {
				t.Fatal(err)
			}
			if got := sumOf(t, res); got != 42 {
				t.Fatalf("sum = %v", got)
			}
			var mu sync.Mutex
			var steps []float64
			res, err = c.CallTool(ctx, "count", map[string]int{"steps": 3}, client.WithProgress(func(p *mcp.ProgressParams) {
				mu.Lock()
				steps = append(steps, p.Progress)
				mu.Unlock()
			}))
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			// Progress rides the same stream, ahead of the result: all of it
			// has arrived by the time the call returns.
			if !slices.Equal(steps, []float64{1, 2, 3}) || sumOf(t, res) != 3 {
				t.Fatalf("progress %v, result %q", steps, res.TextOf())
			}
		})
	}
}

// sumOf reads a sumOut from a result's text, which every revision has
// (structured content arrived in 2025-06-18).
func sumOf(t *testing.T, res *mcp.CallToolResult) float64 {
	t.Helper()
	var out sumOut
	if err := json.Unmarshal([]byte(res.TextOf()), &out); err != nil {
		t.Fatalf("result %q: %v", res.TextOf(), err)
	}
	return out.Sum
}

// In a legacy session the server may ask the client for sampling in the
// middle of a tool call; the request rides the call's SSE stream and the
// answer comes back in a POST of its own.
func TestHTTPSamplingInSession(t *testing.T) {
	_, url := serveHTTP(t, httpTestServer(), nil)
	var asked []string
	c, _ := dialHTTP(t, url, &client.Options{
		ProtocolVersion: mcp.Version20251125,
		OnSampling: func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			asked = append(asked, p.Messages[0].Content[0].(*mcp.TextContent).Text)
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: []mcp.Content{&mcp.TextContent{Text: "42"}}}, nil
		},
	})
	res, err := c.CallTool(context.Background(), "ask", map[string]string{"q": "answer?"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.TextOf(); got != "model said: 42" || !slices.Equal(asked, []string{"answer?"}) {
		t.Fatalf("result %q, asked %v", got, asked)
	}
}

// A deleted session is gone: the next call fails with ErrSessionExpired,
// which is also why the connection closed.
func TestHTTPSessionExpired(t *testing.T) {
	h, url := serveHTTP(t, httpTestServer(), nil)
	c, f := dialHTTP(t, url, &client.Options{ProtocolVersion: mcp.Version20251125})
	if code := deleteSession(t, url, f.SessionID()); code != http.StatusNoContent || h.SessionCount() != 0 {
		t.Fatalf("DELETE: %d, %d sessions left", code, h.SessionCount())
	}
	_, err := c.CallTool(context.Background(), "sum", map[string]float64{"a": 1, "b": 2})
	var expired *mcphttp.SessionExpiredError
	if !errors.Is(err, mcphttp.ErrSessionExpired) || !errors.As(err, &expired) || expired.SessionID == "" {
		t.Fatalf("call after DELETE: %v, want ErrSessionExpired", err)
	}
	<-c.Done()
	if err := c.Conn().Err(); !errors.Is(err, mcphttp.ErrSessionExpired) || !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("close cause %v", err)
	}
}

// Messages not tied to a request reach the client on the GET stream; one
// sent before the stream opened waits for it.
func TestHTTPGetStreamListChanged(t *testing.T) {
	srv := httpTestServer()
	_, url := serveHTTP(t, srv, nil)
	changed := make(chan struct{}, 4)
	c, _ := dialHTTP(t, url, &client.Options{
		ProtocolVersion: mcp.Version20251125,
		OnToolsChanged:  func() { changed <- struct{}{} },
	})
	srv.RemoveTools("ask")
	<-changed
	tools, err := c.ListTools(context.Background())
	if err != nil || len(tools) != 2 {
		t.Fatalf("after the change: %d tools, %v", len(tools), err)
	}
}

// Shutdown ends sessions and their streams, and refuses new requests.
func TestHTTPShutdown(t *testing.T) {
	h, url := serveHTTP(t, httpTestServer(), nil)
	c, _ := dialHTTP(t, url, &client.Options{ProtocolVersion: mcp.Version20251125})
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err := c.CallTool(context.Background(), "sum", map[string]float64{"a": 1, "b": 2})
	var rpcErr *mcp.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeInternalError || rpcErr.Message != "server is shutting down" {
		t.Fatalf("call after Shutdown: %v", err)
	}
	if h.SessionCount() != 0 {
		t.Fatalf("%d sessions after Shutdown", h.SessionCount())
	}
	resp := rawPost(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("after Shutdown: %s", resp.Status)
	}
}
