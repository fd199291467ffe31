package mcphttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// In a session, a tool call whose result is the first thing it produces,
// and comes quickly, is answered as plain JSON; one that reports progress
// first, or takes longer, gets a stream that starts with its priming event.
func TestHTTPQuickCallAnswersJSON(t *testing.T) {
	srv := httpTestServer()
	release := make(chan struct{})
	mcp.AddTool(srv, &mcp.Tool{Name: "wait", Description: "Waits to be released."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released"}}}, nil, nil
		})
	_, url := serveHTTP(t, srv, &mcphttp.HandlerOptions{Retry: time.Second})
	sid := openSession(t, url)
	hdr := map[string]string{mcphttp.HeaderSessionID: sid, mcphttp.HeaderProtocolVersion: mcp.Version20251125}

	resp := rawPost(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum","arguments":{"a":1,"b":2}}}`, hdr)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("quick call: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	var reply struct {
		ID     int `json:"id"`
		Result struct {
			StructuredContent struct{ Sum float64 } `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &reply); err != nil || reply.ID != 2 || reply.Result.StructuredContent.Sum != 3 {
		t.Fatalf("quick call answered %s (%v)", body, err)
	}

	s := openSSE(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"count","arguments":{"steps":1},"_meta":{"progressToken":"p"}}}`, hdr)
	if got := strings.Join(s.event(t), "|"); !strings.HasSuffix(got, "|retry: 1000|data: ") {
		t.Fatalf("progress first: priming event %q", got)
	}

	// Released only once the stream has started: the call took longer
	// than a quick answer may.
	s = openSSE(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"wait","arguments":{}}}`, hdr)
	if got := strings.Join(s.event(t), "|"); !strings.HasSuffix(got, "|retry: 1000|data: ") {
		t.Fatalf("slow call: priming event %q", got)
	}
	close(release)
	if ev := s.event(t); len(ev) != 3 || !strings.Contains(ev[2], "released") {
		t.Fatalf("slow call: result event %q", ev)
	}
}
