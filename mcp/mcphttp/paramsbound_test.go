package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// Over HTTP as over a stream, a request's params are held to
// ServerOptions.MaxParamsMemory before anything decodes them: arguments of
// empty objects are refused with CodeInvalidParams, the tool does not run,
// and the next call is served. The check is the server's, so it holds for
// every transport that hands requests to it.
func TestParamsDecodedSizeIsBoundedOverHTTP(t *testing.T) {
	const n = 1 << 18 // 768 KiB on the wire, some 25 MiB decoded
	srv := mcp.NewServer(&mcp.Implementation{Name: "p", Version: "1"}, &mcp.ServerOptions{MaxParamsMemory: 8 << 20, Logger: quietLog})
	var runs atomic.Int64
	mcp.AddTool(srv, &mcp.Tool{Name: "untyped"}, func(_ context.Context, _ *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
		runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
	})
	_, url := serveHTTP(t, srv, nil)
	c, _ := dialHTTP(t, url, nil)
	ctx := context.Background()
	args := json.RawMessage(`{"a":[` + strings.Repeat(`{},`, n-1) + `{}]}`)

	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err := c.CallTool(ctx, "untyped", args)
	runtime.ReadMemStats(&m1)
	var e *mcp.Error
	if !errors.As(err, &e) || e.Code != mcp.CodeInvalidParams || !strings.Contains(e.Message, "MaxParamsMemory") {
		t.Fatalf("tools/call of %d empty objects under MaxParamsMemory of 8 MiB: %v, want CodeInvalidParams naming MaxParamsMemory", n, err)
	}
	if runs.Load() != 0 {
		t.Error("the tool ran for arguments refused as too large")
	}
	// Refused before decoding: client and server together allocated a few
	// copies of the body (encoded, sent, read), not its objects.
	if d := m1.TotalAlloc - m0.TotalAlloc; d > 12<<20 {
		t.Errorf("allocated %d MiB for refused params of %d KiB", d>>20, 3*n>>10)
	}
	res, err := c.CallTool(ctx, "untyped", map[string]any{"a": []any{map[string]any{}}})
	if err != nil || res.TextOf() != "ran" {
		t.Fatalf("the call after the refused one: %v, %v", res, err)
	}
}
