package mcphttp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

// The framer's own client takes response headers of up to 1 MiB, not
// net/http's 10 MiB: a
// response's header is held as long as the response, and an SSE response
// lasts as long as its call, so a server padding its headers made every
// call in flight hold 10 MiB. Headers of ordinary size pass.
func TestDefaultClientBoundsResponseHeaders(t *testing.T) {
	for _, c := range []struct {
		name  string
		bytes int
		ok    bool
	}{{"32 KiB", 32 << 10, true}, {"2 MiB", 2 << 20, false}} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				pad := strings.Repeat("p", 1000)
				for i := range c.bytes / 1024 {
					w.Header().Set("X-Pad-"+strconv.Itoa(i), pad)
				}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"`+mcp.LatestLegacyVersion+
					`","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
			}))
			defer srv.Close()
			stream, err := mcphttp.NewStream(context.Background(), srv.URL, &mcphttp.ClientOptions{NoListen: true, CloseTimeout: -1})
			if err != nil {
				t.Fatal(err)
			}
			conn := transport.NewConn(stream, nil, nil)
			defer conn.Close()
			err = conn.Call(context.Background(), "initialize", &mcp.InitializeParams{ProtocolVersion: mcp.LatestLegacyVersion}, nil)
			if c.ok && err != nil {
				t.Errorf("headers of %s: %v", c.name, err)
			}
			if !c.ok && (err == nil || !strings.Contains(err.Error(), "header")) {
				t.Errorf("headers of %s: %v, want the call to fail on them", c.name, err)
			}
		})
	}
}

// DefaultClient is the framer's own client, new for each caller: the
// caller may change it, and its transport (the framers' pool, with the
// 1 MiB bound on response headers) is shared.
func TestDefaultClientExported(t *testing.T) {
	a, b := mcphttp.DefaultClient(), mcphttp.DefaultClient()
	if a == b || a.Transport != b.Transport || a.CheckRedirect == nil || a.Timeout != 0 {
		t.Fatalf("DefaultClient: %p %p, transports %p %p, CheckRedirect set %v, timeout %v", a, b, a.Transport, b.Transport, a.CheckRedirect != nil, a.Timeout)
	}
	if tr, ok := a.Transport.(*http.Transport); !ok || tr.MaxResponseHeaderBytes != 1<<20 || tr.MaxIdleConnsPerHost != mcphttp.DefaultMaxIdleConnsPerHost {
		t.Fatalf("DefaultClient's transport: %#v", a.Transport)
	}
}
