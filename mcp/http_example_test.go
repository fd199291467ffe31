package mcp_test

import (
	"context"
	"log"
	"net/http"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// Serving over Streamable HTTP on loopback, which the handler's default
// Host and Origin checks expect, with the diagnostic echo in front and a
// graceful shutdown: the MCP handler first (it ends SSE streams), then the
// HTTP server.
func ExampleNewHTTPHandler() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "adder", Version: "1.0.0"}, nil)
	h := mcp.NewHTTPHandler(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", transport.EchoHandler(h, nil))
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
