package mcphttp_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// Stateless requests that send the same _meta, served concurrently by a
// handler that changes every part of its request's Meta, each see the
// _meta they sent less the protocol's own entries, which they read typed
// from the request: nothing a handler holds is shared with another
// request (run with -race).
func TestStatelessHandlerChangesMeta(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "meta", Version: "1"}, &mcp.ServerOptions{Logger: quietLog})
	mcp.AddTool(srv, &mcp.Tool{Name: "scribble"},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			m := req.Params.Meta
			trace, _ := m["example.com/trace"].(map[string]any)
			span, _ := trace["span"].(map[string]any)
			_, leaked := m[mcp.MetaClientInfo]
			ok := len(m) == 1 && !leaked && span["id"] == "s1" &&
				req.ClientInfo().Name == "memo-client" && req.ClientCapabilities().Roots != nil &&
				req.ClientCapabilities().Roots.ListChanged && req.ClientCapabilities().Sampling == nil &&
				req.ProtocolVersion() == mcp.Version20260728
			if span != nil {
				span["id"] = "changed"
				trace["extra"] = true
			}
			m[mcp.MetaClientInfo] = "planted"
			// The typed views are the handler's own too.
			if c := req.ClientCapabilities(); c.Roots != nil {
				c.Roots.ListChanged = false
				c.Sampling = &mcp.SamplingCapability{}
			}
			if !ok {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "saw a changed _meta"}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pristine"}}}, nil, nil
		})
	_, url := serveHTTP(t, srv, nil)
	hdr := map[string]string{mcphttp.HeaderProtocolVersion: mcp.Version20260728, mcphttp.HeaderMethod: "tools/call", mcphttp.HeaderName: "scribble"}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 10 {
				body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(g*100+i) + `,"method":"tools/call","params":{"name":"scribble","arguments":{},"_meta":{` +
					`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"memo-client","version":"1"},` +
					`"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"example.com/trace":{"span":{"id":"s1"}}}}}`
				resp := rawPost(t, url, body, hdr)
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "pristine") {
					t.Errorf("call %d/%d: %s %s", g, i, resp.Status, b)
					return
				}
			}
		})
	}
	wg.Wait()
}

// Stateless sessions end after their response whether their connection
// started (a call that sends progress first) or not (one that does not,
// ended inline): Shutdown finds nothing left, and the Server no session.
func TestStatelessSessionsEnd(t *testing.T) {
	srv := httpTestServer()
	h, url := serveHTTP(t, srv, nil)
	hdr := func(name string) map[string]string {
		return map[string]string{mcphttp.HeaderProtocolVersion: mcp.Version20260728, mcphttp.HeaderMethod: "tools/call", mcphttp.HeaderName: name}
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	for i := range 5 {
		for _, c := range []struct{ name, body, want string }{
			{"sum", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sum","arguments":{"a":1,"b":2},` + meta + `}}}`, `"sum":3`},
			{"count", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{"steps":2},` + meta + `,"progressToken":"p"}}}`, "step 2"},
		} {
			resp := rawPost(t, url, c.body, hdr(c.name))
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), c.want) {
				t.Fatalf("%s %d: %s %s", c.name, i, resp.Status, b)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Sessions()); n != 0 {
		t.Fatalf("%d sessions left", n)
	}
}
