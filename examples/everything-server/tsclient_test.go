package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/peertest"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// TestTSClientOverHTTP has the TypeScript SDK's client talk to the fixture
// over Streamable HTTP: handshake, tool list, a text tool, a tool with
// progress, and an erroring tool.
func TestTSClientOverHTTP(t *testing.T) {
	ts := httptest.NewServer(mcphttp.NewHandler(newServer(), nil))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := peertest.RunNode(t, ctx, "ts-client.mjs", "--url", ts.URL,
		"--call", "test_simple_text", "--call", "test_tool_with_progress", "--call", "test_error_handling")
	if err != nil {
		t.Fatalf("ts-client: %v", err)
	}
	var run struct {
		ProtocolVersion string   `json:"protocolVersion"`
		Tools           []string `json:"tools"`
		Calls           []struct {
			Name     string          `json:"name"`
			Result   json.RawMessage `json:"result"`
			Progress []struct {
				Progress float64 `json:"progress"`
			} `json:"progress"`
		} `json:"calls"`
	}
	if err := json.Unmarshal(out, &run); err != nil {
		t.Fatalf("ts-client output %s: %v", out, err)
	}
	if run.ProtocolVersion != mcp.Version20251125 || len(run.Tools) < 10 || len(run.Calls) != 3 {
		t.Fatalf("run: %s", out)
	}
	var text mcp.CallToolResult
	if json.Unmarshal(run.Calls[0].Result, &text) != nil || text.TextOf() != "This is a simple text response for testing." {
		t.Errorf("test_simple_text: %s", run.Calls[0].Result)
	}
	if len(run.Calls[1].Progress) != 3 {
		t.Errorf("progress over SSE: %+v", run.Calls[1].Progress)
	}
	var failed mcp.CallToolResult
	if json.Unmarshal(run.Calls[2].Result, &failed) != nil || !failed.IsError || !strings.Contains(failed.TextOf(), "intentionally") {
		t.Errorf("test_error_handling: %s", run.Calls[2].Result)
	}
}
