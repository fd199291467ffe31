package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/winbridge/winbridge/internal/httpserve"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

// serveHTTP serves Streamable HTTP at /mcp on s.httpAddr until ctx ends.
// The handler accepts only loopback Host and Origin headers (DNS-rebinding
// protection) and bounds what clients can make it hold; an address other
// hosts can reach is refused unless -http-allow-remote and a token are
// given (internal/httpserve). With -echo every request is summarised on
// stderr, secrets masked.
func serveHTTP(ctx context.Context, s *settings, srv *mcp.Server, log *slog.Logger, stderr io.Writer) int {
	cfg := s.http
	cfg.Addr = s.httpAddr
	ep, err := cfg.Listen()
	if err != nil {
		fmt.Fprintln(stderr, "winbridge:", err)
		if errors.Is(err, httpserve.ErrConfig) {
			return 2 // bad settings, as for flags
		}
		return 1
	}
	opts := &mcphttp.HandlerOptions{Logger: log}
	ep.Options(opts)
	h := mcphttp.NewHandler(srv, opts)
	handler := ep.Handler(h)
	if s.echo {
		// Outermost, so that refused requests show too (tokens masked).
		handler = mcphttp.EchoHandler(handler, &transport.EchoOptions{Writer: stderr})
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	hs := httpserve.Server(mux)
	ln := ep.Listener
	log.Info("winbridge: serving Streamable HTTP", "url", "http://"+ln.Addr().String()+"/mcp", "token", ep.Token != "")
	go func() {
		<-ctx.Done()
		// h.Shutdown cancels every session's calls and waits for them
		// (each at most mcp.DefaultShutdownTimeout after its session
		// ended), so that win_exec has killed its process trees before
		// Serve returns and the bridge exits.
		sctx, cancel := context.WithTimeout(context.Background(), mcp.DefaultShutdownTimeout+5*time.Second)
		defer cancel()
		if err := h.Shutdown(sctx); err != nil {
			log.Warn("winbridge: HTTP shutdown did not finish", "err", err)
		}
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(stderr, "winbridge:", err)
		return 1
	}
	return 0
}
