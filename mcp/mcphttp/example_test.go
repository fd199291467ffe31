package mcphttp_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// Serving over Streamable HTTP on loopback, which the handler's default
// Host and Origin checks expect, with the diagnostic echo in front and a
// graceful shutdown: the MCP handler first (it ends SSE streams), then the
// HTTP server.
func ExampleNewHandler() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "adder", Version: "1.0.0"}, nil)
	h := mcphttp.NewHandler(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcphttp.EchoHandler(h, nil))
	hs := &http.Server{Addr: "127.0.0.1:8080", Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	hs.RegisterOnShutdown(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.Shutdown(ctx)
	})
	go func() {
		if err := hs.ListenAndServe(); err != nil && err != http.ErrServerClosed {
			log.Fatal(err)
		}
	}()
	// ... later:
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = h.Shutdown(ctx)
	_ = hs.Shutdown(ctx)
}

// A client over Streamable HTTP: NewStream gives client.Connect what a
// pipe or stdio would. Here the server is in the same process, behind an
// httptest server on loopback; a legacy revision gets a session, which
// Close deletes.
func ExampleNewStream() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "adder", Version: "1.0.0"}, nil)
	type in struct{ A, B int }
	type out struct {
		Sum int `json:"sum"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "sum"}, func(ctx context.Context, req *mcp.CallToolRequest, v in) (*mcp.CallToolResult, out, error) {
		return nil, out{v.A + v.B}, nil
	})
	h := mcphttp.NewHandler(srv, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Shutdown(context.Background())

	ctx := context.Background()
	for _, v := range []string{mcp.Version20260728, mcp.Version20251125} {
		stream, err := mcphttp.NewStream(ctx, ts.URL+"/mcp", nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		c, err := client.Connect(ctx, stream, &client.Options{ProtocolVersion: v})
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := c.CallTool(ctx, "sum", map[string]int{"A": 2, "B": 40})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(c.ProtocolVersion(), res.StructuredContent, "sessions:", h.SessionCount())
		c.Close()
	}
	// Output:
	// 2026-07-28 map[sum:42] sessions: 0
	// 2025-11-25 map[sum:42] sessions: 1
}
