package mcphttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/peertest"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

// tsHTTPRun is what ts-client.mjs prints.
type tsHTTPRun struct {
	ProtocolVersion string `json:"protocolVersion"`
	ServerInfo      struct{ Name string }
	Tools           []string `json:"tools"`
	Calls           []struct {
		Name   string `json:"name"`
		Result *struct {
			StructuredContent map[string]float64 `json:"structuredContent"`
			IsError           bool               `json:"isError"`
		} `json:"result"`
		Error    json.RawMessage `json:"error"`
		Progress []struct {
			Progress float64 `json:"progress"`
			Total    float64 `json:"total"`
			Message  string  `json:"message"`
		} `json:"progress"`
	} `json:"calls"`
}

// The TypeScript SDK's Streamable HTTP client against our handler:
// initialize (a session), list tools, call a tool that reports progress
// on the call's SSE stream. The echo
// middleware sits in between and must not disturb any of it.
func TestHTTPTypeScriptClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := httpTestServer()
	h, url := serveHTTPWrapped(t, srv, nil, func(next http.Handler) http.Handler {
		return mcphttp.EchoHandler(next, &transport.EchoOptions{Handler: quietLog.Handler()})
	})
	out, err := peertest.RunNode(t, ctx, "ts-client.mjs", "--url", url,
		"--call", `sum={"a":20,"b":22}`, "--call", `count={"steps":3}`)
	if err != nil {
		t.Fatal(err)
	}
	var run tsHTTPRun
	if err := json.Unmarshal(out, &run); err != nil {
		t.Fatalf("ts-client output %q: %v", out, err)
	}
	if run.ProtocolVersion == "" || run.ServerInfo.Name != "http-test" || !slices.Equal(run.Tools, []string{"ask", "count", "sum"}) {
		t.Fatalf("handshake: %+v", run)
	}
	if len(run.Calls) != 2 || run.Calls[0].Result == nil || run.Calls[0].Result.StructuredContent["sum"] != 42 {
		t.Fatalf("sum call: %s", out)
	}
	c := run.Calls[1]
	if c.Result == nil || c.Result.StructuredContent["sum"] != 3 || len(c.Progress) != 3 || c.Progress[2].Progress != 3 || c.Progress[2].Total != 3 || c.Progress[0].Message != "step 1" {
		t.Fatalf("count call with progress: %s", out)
	}
	// One session for the whole run; the SDK's close() does not DELETE it
	// (that is its separate terminateSession), so it is still there.
	if n := h.SessionCount(); n != 1 {
		t.Fatalf("%d sessions, want the one the client opened", n)
	}
}
