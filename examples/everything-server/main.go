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
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/winbridge/winbridge/internal/cli"
	"github.com/winbridge/winbridge/internal/httpserve"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

func main() {
	var hc httpserve.Config
	flag.StringVar(&hc.Addr, "http", "", "serve Streamable HTTP on `ADDR` (host:port) at /mcp instead of stdio; loopback only unless -http-allow-remote")
	flag.BoolVar(&hc.AllowRemote, "http-allow-remote", false, "allow -http on an address other hosts can reach; needs a token")
	flag.StringVar(&hc.TokenFile, "http-token-file", "", "require Authorization: Bearer <token>, the token read from this `file` (or set EVERYTHING_SERVER_HTTP_TOKEN)")
	flag.StringVar(&hc.Redis, "redis", os.Getenv("EVERYTHING_SERVER_REDIS_URL"), "with -http, share sessions, streams, notifications and requestState keys with the other replicas on the Redis at `URL` (redis://, rediss://, unix://); set EVERYTHING_SERVER_REDIS_URL instead to keep a password out of the process list; needs a build by scripts/build-redis")
	version := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *version {
		fmt.Println(cli.VersionString("everything-server"))
		return
	}
	hc.Token = os.Getenv("EVERYTHING_SERVER_HTTP_TOKEN")

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := hc.OpenReplicas(ctx, slog.Default())
	if err != nil {
		slog.Error("everything-server", "err", err)
		if errors.Is(err, httpserve.ErrConfig) {
			os.Exit(2)
		}
		os.Exit(1)
	}
	if rep != nil {
		defer rep.Close()
	}
	srv := newServer(hc.ServerOptions)
	go watch(ctx, srv, 3*time.Second)

	if hc.Addr != "" {
		err = serveHTTP(ctx, srv, &hc)
	} else {
		err = serveStdio(ctx, srv)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		slog.Error("everything-server", "err", err)
		if errors.Is(err, httpserve.ErrConfig) {
			os.Exit(2) // bad settings: a refused address or token
		}
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

// serveHTTP serves the Streamable HTTP transport at /mcp until ctx ends.
// The handler accepts only loopback Host and Origin headers (DNS
// rebinding protection, which dns-rebinding-protection checks); an
// address other hosts can reach is refused unless -http-allow-remote and
// a token are given (internal/httpserve).
func serveHTTP(ctx context.Context, srv *mcp.Server, hc *httpserve.Config) error {
	ep, err := hc.Listen()
	if err != nil {
		return err
	}
	opts := &mcphttp.HandlerOptions{}
	ep.Options(opts)
	h := mcphttp.NewHandler(srv, opts)
	mux := http.NewServeMux()
	mux.Handle("/mcp", ep.Handler(h))
	hs := httpserve.Server(mux)
	ln := ep.Listener
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
