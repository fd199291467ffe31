package mcphttp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

// A session id the transport forbids is refused at initialize, which then
// fails naming the header, and is never sent back. The specification
// allows visible ASCII only (0x21 to 0x7E). Before, any value was kept
// and sent with every request: as much as a response header holds, on
// each, or characters that net/http refuses (every later request failed
// on them), or a right-to-left override that reordered the text of the
// error naming the session when it expired.
func TestSessionIDMustBeVisibleASCII(t *testing.T) {
	for name, sid := range map[string]string{
		"bidi":    "\u202egnp.exe",
		"space":   "a b",
		"escape":  "\x1b[31mred",
		"delete":  "a\x7f",
		"64 KiB":  strings.Repeat("a", 64<<10),
		"latin-1": "caf\xe9",
	} {
		t.Run(name, func(t *testing.T) {
			var echoed atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get(mcphttp.HeaderSessionID) != "" {
					echoed.Add(1)
				}
				body, _ := io.ReadAll(r.Body)
				if r.Method != http.MethodPost || !strings.Contains(string(body), `"initialize"`) {
					w.WriteHeader(http.StatusAccepted)
					return
				}
				w.Header().Set(mcphttp.HeaderSessionID, sid)
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
			err = conn.Call(context.Background(), "initialize", &mcp.InitializeParams{ProtocolVersion: mcp.LatestLegacyVersion}, nil)
			if err == nil || !strings.Contains(err.Error(), "Mcp-Session-Id") {
				t.Errorf("initialize with session id %.40q: %v, want an error naming Mcp-Session-Id", sid, err)
			}
			if err != nil && len(err.Error()) > 512 {
				t.Errorf("the error repeats the id: %d bytes", len(err.Error()))
			}
			conn.Notify(context.Background(), "notifications/initialized", nil)
			conn.Close()
			if n := echoed.Load(); n != 0 {
				t.Errorf("the session id was sent back %d times", n)
			}
		})
	}
}
