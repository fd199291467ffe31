package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

// serveHTTP serves Streamable HTTP at /mcp on s.httpAddr until ctx ends.
// The handler accepts only loopback Host and Origin headers (DNS-rebinding
// protection); with -echo every request is summarised on stderr, secrets
// masked.
func serveHTTP(ctx context.Context, s *settings, srv *mcp.Server, log *slog.Logger, stderr io.Writer) int {
	h := mcphttp.NewHandler(srv, &mcphttp.HandlerOptions{Logger: log})
	var handler http.Handler = h
	if s.echo {
		handler = mcphttp.EchoHandler(h, &transport.EchoOptions{Writer: stderr})
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ln, err := net.Listen("tcp", s.httpAddr)
	if err != nil {
		fmt.Fprintln(stderr, "winbridge:", err)
		return 1
	}
	log.Info("winbridge: serving Streamable HTTP", "url", "http://"+ln.Addr().String()+"/mcp")
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.Shutdown(sctx)
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(stderr, "winbridge:", err)
		return 1
	}
	return 0
}
