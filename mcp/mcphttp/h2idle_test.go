package mcphttp_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// An SSE stream that idles longer than WriteTimeout between events, its
// client reading all along, is not cut over HTTP/2. WriteTimeout bounds
// each write; over HTTP/1.1 a deadline that passes with no write in
// progress does nothing (the next write sets its own), but over HTTP/2
// the stream's write deadline is a timer that resets the stream when it
// fires, whether or not a write is in progress. With keep-alives off (or
// further apart than WriteTimeout), a healthy stream was reset
// WriteTimeout after its last event.
func TestHTTP2IdleStreamOutlivesWriteTimeout(t *testing.T) {
	const writeTimeout = 100 * time.Millisecond
	release := make(chan struct{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "idle", Version: "1"}, &mcp.ServerOptions{Logger: quietLog})
	mcp.AddTool(srv, &mcp.Tool{Name: "idle", Description: "Reports progress, then idles until released."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, sumOut, error) {
			if err := req.Progress(ctx, 1, 2, "started"); err != nil {
				return nil, sumOut{}, err
			}
			select {
			case <-release:
			case <-ctx.Done():
				return nil, sumOut{}, ctx.Err()
			}
			return nil, sumOut{Sum: 42}, nil
		})
	url, hc := serveH2(t, srv, &mcphttp.HandlerOptions{WriteTimeout: writeTimeout, KeepAlive: -1}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"idle","arguments":{},"_meta":{"progressToken":"p",` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	resp, err := hc.Do(statelessCall(t, ctx, url, "idle", strings.NewReader(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("answered over %s: %s %s, want a 200 SSE stream over HTTP/2", resp.Proto, resp.Status, resp.Header.Get("Content-Type"))
	}
	lines := make(chan string)
	ended := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if !strings.HasPrefix(sc.Text(), "data: {") {
				continue // the event's other fields, and the lines between events
			}
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		err := sc.Err()
		if err == nil {
			err = io.EOF
		}
		ended <- err
	}()
	next := func(what string) string {
		t.Helper()
		for {
			select {
			case l := <-lines:
				return l
			case err := <-ended:
				t.Fatalf("the stream ended (%v) before %s", err, what)
			case <-ctx.Done():
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	if l := next("the progress event"); !strings.Contains(l, "notifications/progress") {
		t.Fatalf("first event %s, want progress", l)
	}
	// The client keeps reading while the call idles, well past
	// WriteTimeout: nothing is written, so no write is late.
	select {
	case l := <-lines:
		t.Fatalf("an event while the call idles: %s", l)
	case err := <-ended:
		t.Fatalf("the stream ended (%v) while the call idled, its client reading", err)
	case <-time.After(5 * writeTimeout):
	}
	close(release)
	if l := next("the result"); !strings.Contains(l, `"sum":42`) {
		t.Fatalf("final event %s, want the result", l)
	}
}

// A refusal over HTTP/2 ends its stream, not the connection: a 408 for
// a stalled body, a 503 under MaxInFlight, a 401. Connection: close,
// which over HTTP/1.1 keeps an unread body from holding the connection,
// makes net/http's HTTP/2 server send GOAWAY, so that one client's
// refusal turned away every new stream on a connection others may
// share (a proxy's), and its client reconnected (a TLS handshake) for
// each; the stream's unread body is reset on its own (RST_STREAM
// NO_ERROR once the answer is sent).
func TestHTTP2RefusalKeepsConnection(t *testing.T) {
	const bodyTimeout = 200 * time.Millisecond
	returned := make(chan string, 8)
	url, hc := serveH2(t, httpTestServer(), &mcphttp.HandlerOptions{BodyTimeout: bodyTimeout},
		func(next http.Handler) http.Handler {
			return returns(returned)(mcphttp.RequireBearer("secret", next))
		})
	var conns []string
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { conns = append(conns, i.Conn.LocalAddr().String()) }}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ctx = httptrace.WithClientTrace(ctx, trace)
	do := func(body io.Reader, token string) *http.Response {
		t.Helper()
		req := statelessCall(t, ctx, url, "sum", body)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		await(t, returned, "the request to return")
		return resp
	}
	sum := func() io.Reader { return strings.NewReader(statelessCallBody("sum", `{"a":2,"b":3}`)) }
	if resp := do(sum(), "secret"); resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 {
		t.Fatalf("a call over %s: %s", resp.Proto, resp.Status)
	}
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() { _, _ = io.WriteString(pw, `{"jsonrpc":"2.0","id":1,`) }() // and then nothing
	if resp := do(pr, "secret"); resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("a stalled body: %s, want 408", resp.Status)
	}
	if resp := do(sum(), "wrong"); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a wrong token: %s, want 401", resp.Status)
	}
	if resp := do(sum(), "secret"); resp.StatusCode != http.StatusOK {
		t.Fatalf("a call after the refusals: %s", resp.Status)
	}
	for i, c := range conns {
		if c != conns[0] {
			t.Fatalf("request %d went over a new connection (%v): a refusal ended the connection", i, conns)
		}
	}
}
