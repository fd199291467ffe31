package mcphttp_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// watchedListener hands out connections that note every write made
// without a write deadline in effect.
type watchedListener struct {
	net.Listener
	mu       sync.Mutex
	accepted int
	bare     []string // what was written with no deadline
}

func (l *watchedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.accepted++
	l.mu.Unlock()
	return &watchedConn{Conn: c, l: l}, nil
}

type watchedConn struct {
	net.Conn
	l        *watchedListener
	mu       sync.Mutex
	deadline time.Time
}

func (c *watchedConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	return c.Conn.SetDeadline(t)
}

func (c *watchedConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	return c.Conn.SetWriteDeadline(t)
}

func (c *watchedConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	bare := c.deadline.IsZero()
	c.mu.Unlock()
	if bare {
		c.l.mu.Lock()
		c.l.bare = append(c.l.bare, string(b))
		c.l.mu.Unlock()
	}
	return c.Conn.Write(b)
}

// Every byte of the handler's answers goes out under a write deadline,
// the connection's or, for a whole answer of declared length, a wait in
// the Handler's queue that sets one once it falls due (connWait; checked
// by TestHTTPWriteTimeoutWholeAnswer, as the connection shows nothing of
// it), including what net/http writes after ServeHTTP returns: the chunked
// terminator of an SSE answer was written with none, so a client that
// stopped reading as its stream ended could hold the connection and its
// goroutine for ever. The deadline left for it does not fail the next
// answer on the kept-alive connection, even once it has passed (net/http
// clears it after the response; the handler sets a fresh one per write).
func TestHTTPEveryWriteHasADeadline(t *testing.T) {
	const timeout = 100 * time.Millisecond
	h := mcphttp.NewHandler(httpTestServer(), &mcphttp.HandlerOptions{WriteTimeout: timeout, Logger: quietLog})
	ts := httptest.NewUnstartedServer(h)
	wl := &watchedListener{Listener: ts.Listener}
	ts.Listener = wl
	ts.Start()
	defer ts.Close()
	defer func() { _ = h.Shutdown(t.Context()) }()
	url := ts.URL + "/mcp"
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	post := func(body string, hdr map[string]string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	resp := post(initBody, nil)
	sid := resp.Header.Get(mcphttp.HeaderSessionID)
	hdr := map[string]string{mcphttp.HeaderSessionID: sid, mcphttp.HeaderProtocolVersion: mcp.Version20251125}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	count := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{"steps":2},"_meta":{"progressToken":1}}}`
	for range 2 {
		resp = post(count, hdr)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("a call with progress: %s %q, want an SSE stream", resp.Status, resp.Header.Get("Content-Type"))
		}
		// Past the deadline the stream's end was written under: the next
		// answer on this connection must not meet it. (Time passing, not
		// synchronisation.)
		time.Sleep(2 * timeout)
	}
	resp = post(`{"jsonrpc":"2.0","id":3,"method":"ping"}`, hdr)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a ping after the streams: %s", resp.Status)
	}
	wl.mu.Lock()
	defer wl.mu.Unlock()
	if wl.accepted != 1 {
		t.Errorf("%d connections for requests sent one after another, want 1 (kept alive)", wl.accepted)
	}
	var bare []string
	for _, b := range wl.bare {
		if !wholeJSON(b) {
			bare = append(bare, b)
		}
	}
	if len(bare) > 0 {
		t.Errorf("written with no deadline: %q", bare)
	}
	if len(bare) == len(wl.bare) {
		t.Error("no whole JSON answer written: the test no longer sees the writes it means to")
	}
}

// wholeJSON reports whether b is a whole JSON answer, its header and
// body written at once, its length declared.
func wholeJSON(b string) bool {
	head, body, ok := strings.Cut(b, "\r\n\r\n")
	return ok && strings.HasPrefix(head, "HTTP/1.1 ") && strings.Contains(head, "\r\nContent-Type: application/json") &&
		strings.Contains(head, "\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n")
}

// A whole answer, written with no deadline on the connection, is still
// cut off after WriteTimeout when its client stops reading: the POST
// returns instead of blocking on a full socket for ever.
func TestHTTPWriteTimeoutWholeAnswer(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, &mcp.ServerOptions{Logger: quietLog})
	big := strings.Repeat("x", 32<<20) // more than loopback's socket buffers hold
	mcp.AddTool(srv, &mcp.Tool{Name: "big", Description: "Answers 32 MiB."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big}}}, nil, nil
		})
	returned := make(chan string, 4)
	_, url := serveHTTPWrapped(t, srv, &mcphttp.HandlerOptions{WriteTimeout: 200 * time.Millisecond, Logger: quietLog}, returns(returned))
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"%s: %s\r\n%s: tools/call\r\n%s: big\r\nContent-Length: %d\r\n\r\n%s",
		addr, mcphttp.HeaderProtocolVersion, mcp.Version20260728, mcphttp.HeaderMethod, mcphttp.HeaderName, len(body), body)
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	// Never read: the answer fills the socket, and its write must fail.
	start := time.Now()
	await(t, returned, "the POST whose client reads nothing of its 32 MiB answer to return")
	took := time.Since(start)
	// What the socket took of the answer is still here to read: it was
	// the whole answer's start, not a refusal.
	head := make([]byte, 512)
	n, _ := io.ReadAtLeast(conn, head, len("HTTP/1.1 200"))
	if !wholeJSON(string(head[:n])+"\r\n\r\n") && !strings.HasPrefix(string(head[:n]), "HTTP/1.1 200 OK\r\n") {
		t.Fatalf("answered %q, want the start of a 200 JSON answer", head[:n])
	}
	if took < 200*time.Millisecond {
		t.Fatalf("returned %v after the request, before WriteTimeout (200 ms): the answer did not fill the socket", took)
	}
	t.Logf("returned %v after the request (WriteTimeout 200 ms)", took)
}
