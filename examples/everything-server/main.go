// Command everything-server serves the MCP conformance suite's reference
// fixture: the tools, resources, prompts and completions that the server
// scenarios of @modelcontextprotocol/conformance name, in both protocol
// eras (2025-11-25 with initialize, 2026-07-28 stateless).
//
// It speaks over stdio by default. With -http ADDR it serves the
// Streamable HTTP transport at http://ADDR/mcp instead, which is what the
// suite drives:
//
//	everything-server -http 127.0.0.1:3000 &
//	conformance server --url http://127.0.0.1:3000/mcp --requirements 2025-11-25
//	conformance server --url http://127.0.0.1:3000/mcp --requirements 2026-07-28
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/winbridge/winbridge/internal/cli"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on `ADDR` (host:port) at /mcp instead of stdio")
	version := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *version {
		fmt.Println(cli.VersionString("everything-server"))
		return
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := newServer()
	go watch(ctx, srv, 3*time.Second)

	var err error
	if *addr != "" {
		err = serveHTTP(ctx, srv, *addr)
	} else {
		err = serveStdio(ctx, srv)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		slog.Error("everything-server", "err", err)
		os.Exit(1)
	}
}

// serveStdio serves one session on stdin and stdout.
func serveStdio(ctx context.Context, srv *mcp.Server) error {
	stream, err := transport.Stdio(nil)
	if err != nil {
		return err
	}
	return srv.Run(ctx, stream)
}

// serveHTTP serves the Streamable HTTP transport at /mcp on addr until ctx
// ends. The handler accepts only loopback Host and Origin headers (DNS
// rebinding protection, which dns-rebinding-protection checks).
func serveHTTP(ctx context.Context, srv *mcp.Server, addr string) error {
	h := mcphttp.NewHandler(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	slog.Info("everything-server: serving", "url", "http://"+ln.Addr().String()+"/mcp")
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.Shutdown(sctx)
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return ctx.Err()
}

// watch tells the subscribers of the watched resource that it changed,
// every interval, as the reference fixture's description promises.
func watch(ctx context.Context, srv *mcp.Server, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			nctx, cancel := context.WithTimeout(ctx, time.Second)
			srv.ResourceUpdated(nctx, watchedURI)
			cancel()
		}
	}
}
