package mcphttp_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// The Handler's body and answer deadlines over HTTP/2. There a deadline
// set through http.ResponseController is the stream's, not the
// connection's, and it is set through the connection's serve loop; the
// deadlines kept by the Handler's delay queues (internal/delayq) must
// still end a stalled body or an unread answer, and leave every other
// stream on the connection alone.

// serveH2 serves srv over TLS with HTTP/2 and returns the endpoint and a
// client that speaks HTTP/2 to it.
func serveH2(t *testing.T, srv *mcp.Server, opts *mcphttp.HandlerOptions, wrap func(http.Handler) http.Handler) (string, *http.Client) {
	t.Helper()
	_, ts := startTestServer(t, srv, opts, wrap, true)
	return ts.URL + "/mcp", ts.Client()
}

// statelessCall is a 2026-07-28 tools/call request for tool with no
// arguments, its body given.
func statelessCall(t *testing.T, ctx context.Context, url, tool string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcphttp.HeaderProtocolVersion, mcp.Version20260728)
	req.Header.Set(mcphttp.HeaderMethod, "tools/call")
	req.Header.Set(mcphttp.HeaderName, tool)
	return req
}

func statelessCallBody(tool, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `,"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
}

// Calls over HTTP/2 in both eras are answered whole, under the write
// deadline, many on one connection.
func TestHTTP2Calls(t *testing.T) {
	url, hc := serveH2(t, httpTestServer(), &mcphttp.HandlerOptions{WriteTimeout: 5 * time.Second, BodyTimeout: 5 * time.Second}, nil)
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(v, func(t *testing.T) {
			c, _ := dialHTTPWith(t, url, &mcphttp.ClientOptions{Client: hc}, &client.Options{ProtocolVersion: v})
			for i := range 20 {
				res, err := c.CallTool(context.Background(), "sum", map[string]float64{"a": float64(i), "b": 1})
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if got := sumOf(t, res); got != float64(i+1) {
					t.Fatalf("call %d: sum %v, want %d", i, got, i+1)
				}
			}
		})
	}
	// The calls above went over HTTP/2, not HTTP/1.1.
	resp, err := hc.Do(statelessCall(t, context.Background(), url, "sum", strings.NewReader(statelessCallBody("sum", `{"a":2,"b":3}`))))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Fatalf("served over %s, want HTTP/2", resp.Proto)
	}
}

// A body that stops coming over HTTP/2 is refused with 408 after
// BodyTimeout, and the POST returns; another stream on the same
// connection is served meanwhile and after.
func TestHTTP2SlowBody(t *testing.T) {
	returned := make(chan string, 4)
	url, hc := serveH2(t, httpTestServer(), &mcphttp.HandlerOptions{BodyTimeout: 200 * time.Millisecond}, returns(returned))
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() { _, _ = io.WriteString(pw, `{"jsonrpc":"2.0","id":1,`) }() // and then nothing
	// Bounded, so that a deadline that never falls due fails the test
	// rather than hanging it.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	resp, err := hc.Do(statelessCall(t, ctx, url, "sum", pr))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("a stalled body over %s: %s %s, want 408", resp.Proto, resp.Status, b)
	}
	if took := time.Since(start); took < 200*time.Millisecond {
		t.Fatalf("refused after %v, before BodyTimeout (200 ms)", took)
	}
	await(t, returned, "the POST with a stalled body to return")
	// The connection serves on.
	resp, err = hc.Do(statelessCall(t, context.Background(), url, "sum", strings.NewReader(statelessCallBody("sum", `{"a":2,"b":3}`))))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"sum":5`) {
		t.Fatalf("a call after the stalled body: %s %s", resp.Status, b)
	}
	await(t, returned, "the next POST to return")
}

// A whole answer its client does not read over HTTP/2 is cut off after
// WriteTimeout once the stream's flow-control window is full: the POST
// returns instead of waiting for the client for ever, and the stream
// ends without the rest of the answer.
func TestHTTP2WriteTimeoutWholeAnswer(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, &mcp.ServerOptions{Logger: quietLog})
	// Far more than an HTTP/2 stream's window (net/http's client grants
	// 4 MiB per stream).
	big := strings.Repeat("x", 32<<20)
	mcp.AddTool(srv, &mcp.Tool{Name: "big", Description: "Answers 32 MiB."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big}}}, nil, nil
		})
	returned := make(chan string, 4)
	url, hc := serveH2(t, srv, &mcphttp.HandlerOptions{WriteTimeout: 200 * time.Millisecond}, returns(returned))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := hc.Do(statelessCall(t, ctx, url, "big", strings.NewReader(statelessCallBody("big", `{}`))))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != http.StatusOK {
		t.Fatalf("answered over %s: %s", resp.Proto, resp.Status)
	}
	start := time.Now()
	// Read nothing until the POST has returned.
	await(t, returned, "the POST whose client reads nothing of its 32 MiB answer to return")
	if took := time.Since(start); took < 150*time.Millisecond {
		t.Fatalf("returned %v after the answer started, before WriteTimeout (200 ms)", took)
	}
	var n atomic.Int64
	_, err = io.Copy(countWriter{&n}, resp.Body)
	if err == nil || n.Load() >= int64(len(big)) {
		t.Fatalf("read %d bytes of the answer, then %v: want it cut off", n.Load(), err)
	}
}

type countWriter struct{ n *atomic.Int64 }

func (w countWriter) Write(p []byte) (int, error) { w.n.Add(int64(len(p))); return len(p), nil }
