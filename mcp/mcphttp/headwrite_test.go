package mcphttp_test

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// WriteTimeout bounds every write to a client, including those of
// answers without a body (202 to a notification), which net/http writes
// after the handler returns: a client that pipelines POSTs and never
// reads their answers fills the socket, and the write of the answer that
// no longer fits must fail after WriteTimeout, not hold the connection
// and its goroutine until the client reads.
func TestHTTPWriteTimeoutBodilessAnswers(t *testing.T) {
	_, url := serveHTTP(t, httpTestServer(), &mcphttp.HandlerOptions{WriteTimeout: 200 * time.Millisecond})
	addr := url[len("http://") : len(url)-len("/mcp")]
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	req := []byte(fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"%s: %s\r\n%s: notifications/initialized\r\nContent-Length: %d\r\n\r\n%s",
		addr, mcphttp.HeaderProtocolVersion, mcp.Version20260728, mcphttp.HeaderMethod, len(body), body))
	// Never read: each POST is answered 202, until the answers fill the
	// socket. The server then closes the connection, which fails a write
	// here; while it is stuck, the writes here block too.
	cut := make(chan error, 1)
	go func() {
		for {
			if _, err := conn.Write(req); err != nil {
				cut <- err
				return
			}
		}
	}()
	select {
	case <-cut:
	case <-time.After(15 * time.Second):
		t.Fatal("the server still holds the connection of a client that reads nothing, 15 s on (WriteTimeout 200 ms)")
	}
}
