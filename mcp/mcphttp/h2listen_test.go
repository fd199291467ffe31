package mcphttp_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// A client's listening stream over HTTP/2 (a legacy session's GET
// stream; a 2026-07-28 subscriptions/listen) outlives WriteTimeout while
// idle, and is not reopened: over HTTP/2 a write deadline left set would
// reset the stream when it fires, and the client would reconnect.
func TestHTTP2ListenStreamIdlesPastWriteTimeout(t *testing.T) {
	const writeTimeout = 100 * time.Millisecond
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(v, func(t *testing.T) {
			srv := httpTestServer()
			var opened atomic.Int32
			open := make(chan struct{}, 8)
			wrap := func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodGet || r.Header.Get(mcphttp.HeaderMethod) == "subscriptions/listen" {
						opened.Add(1)
						open <- struct{}{}
					}
					next.ServeHTTP(w, r)
				})
			}
			url, hc := serveH2(t, srv, &mcphttp.HandlerOptions{WriteTimeout: writeTimeout, KeepAlive: -1}, wrap)
			changed := make(chan struct{}, 8)
			dialHTTPWith(t, url, &mcphttp.ClientOptions{Client: hc},
				&client.Options{ProtocolVersion: v, OnToolsChanged: func() { changed <- struct{}{} }})
			await(t, open, "the listening stream to open")
			// Let the stream idle well past WriteTimeout.
			time.Sleep(5 * writeTimeout)
			mcp.AddTool(srv, &mcp.Tool{Name: "late"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, sumOut, error) {
				return nil, sumOut{}, nil
			})
			await(t, changed, "the tools/list_changed notification")
			if n := opened.Load(); n != 1 {
				t.Fatalf("the listening stream was opened %d times: an idle stream was cut", n)
			}
		})
	}
}

// Many concurrent calls over one HTTP/2 connection, in both eras: the
// framer's shared request headers and the per-stream deadlines race
// with nothing.
func TestHTTP2ConcurrentCalls(t *testing.T) {
	url, hc := serveH2(t, httpTestServer(), &mcphttp.HandlerOptions{WriteTimeout: 5 * time.Second, BodyTimeout: 5 * time.Second}, nil)
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(v, func(t *testing.T) {
			c, _ := dialHTTPWith(t, url, &mcphttp.ClientOptions{Client: hc}, &client.Options{ProtocolVersion: v})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var wg sync.WaitGroup
			for g := range 8 {
				wg.Go(func() {
					for i := range 10 {
						tool, args := "sum", any(map[string]float64{"a": float64(i), "b": float64(g)})
						if i%3 == 0 {
							tool, args = "count", map[string]int{"steps": 3}
						}
						if _, err := c.CallTool(ctx, tool, args); err != nil {
							t.Errorf("call %d/%d: %v", g, i, err)
							return
						}
					}
				})
			}
			wg.Wait()
		})
	}
}
