package mcphttp_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// A body holds MaxBodyMemory as it arrives, not as its Content-Length
// declares: a client that announces the largest body and sends nothing
// would otherwise hold all of it for BodyTimeout, on one connection, and
// every other client's POST would wait BodyWait and get 503.
func TestHTTPDeclaredLengthHoldsNoBudget(t *testing.T) {
	const limit = 1 << 20
	h, url := serveHTTP(t, httpTestServer(), &mcphttp.HandlerOptions{
		MaxBodyBytes: limit, MaxBodyMemory: limit, BodyWait: time.Second, BodyTimeout: time.Minute,
	})
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	// 100-continue: the server asks for the body once it reads it, that
	// is, once it has reserved what the body holds.
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", addr, limit)
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 100") {
		t.Fatalf("status line %q, %v; want 100 Continue", line, err)
	}
	if _, err := io.WriteString(conn, `{"jsonrpc":"2.0",`); err != nil {
		t.Fatal(err)
	}
	if held := h.BodyBytesInUse(); held > 64<<10 {
		t.Errorf("a body that sent 17 bytes holds %d bytes of MaxBodyMemory", held)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta2026 + `}}`
	resp := rawPost(t, url, body, map[string]string{mcphttp.HeaderProtocolVersion: mcp.Version20260728, mcphttp.HeaderMethod: "tools/list"})
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("another client's POST while a declared body is pending: %s", resp.Status)
	}
}

// A body larger than MaxBodyMemory is still served when no other is being
// read, whether it declares its length or not, though it grows its
// reservation step by step.
func TestHTTPLoneBodyLargerThanBudget(t *testing.T) {
	h, url := serveHTTP(t, httpTestServer(), &mcphttp.HandlerOptions{MaxBodyBytes: 1 << 20, MaxBodyMemory: 1 << 10, BodyWait: time.Millisecond})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", 600<<10) + `",` + meta2026 + `}}`
	for _, declared := range []bool{true, false} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if !declared {
			req, _ = http.NewRequest(http.MethodPost, url, io.MultiReader(strings.NewReader(body)))
			req.ContentLength = -1 // chunked
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(mcphttp.HeaderProtocolVersion, mcp.Version20260728)
		req.Header.Set(mcphttp.HeaderMethod, "tools/list")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || req.ContentLength >= 0 != declared {
			t.Fatalf("declared length %v (%d): %s", declared, req.ContentLength, resp.Status)
		}
	}
	if got := h.BodyBytesInUse(); got != 0 {
		t.Fatalf("%d body bytes still reserved", got)
	}
}
