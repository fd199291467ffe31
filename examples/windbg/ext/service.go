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
	mcpapi "github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// service is what a load starts and an unload stops: the engine worker,
// the MCP handler and the HTTP server on the checked listener.
type service struct {
	cfg    Config
	w      *worker
	mcp    *mcphttp.Handler
	hs     *http.Server
	url    string
	served chan struct{} // closed when hs.Serve returned
}

// startService opens the engine on a new worker thread with open, then
// listens and serves /mcp. Nothing is left running when it fails.
func startService(cfg Config, open func() (engine, error)) (*service, error) {
	ep, err := cfg.HTTP.Listen()
	if err != nil {
		return nil, err
	}
	w, err := startWorker(open)
	if err != nil {
		ep.Listener.Close()
		return nil, fmt.Errorf("opening the debugger engine: %w", err)
	}
	// The server's own diagnostics go to the debugger window too, at warn
	// and above; the per-request echo is the info-level record.
	log := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := mcpapi.NewServer(&mcpapi.Implementation{Name: "windbg-ext", Title: "WinDbg extension", Version: version},
		&mcpapi.ServerOptions{
			Logger: log,
			Instructions: cfg.toolName() + " runs one command at a time in the WinDbg session this extension is loaded in. " +
				"Start with k (stack), lm (modules), r (registers) or !analyze -v.",
		})
	addEvalTool(srv, &cfg, w)
	opts := &mcphttp.HandlerOptions{Logger: log}
	ep.Options(opts)
	h := mcphttp.NewHandler(srv, opts)
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcphttp.EchoHandler(ep.Handler(h), &transport.EchoOptions{Writer: prefixWriter{w}, MaxText: cfg.EchoMaxText}))
	s := &service{cfg: cfg, w: w, mcp: h, hs: httpserve.Server(mux), url: "http://" + ep.Listener.Addr().String() + "/mcp", served: make(chan struct{})}
	go func() {
		defer close(s.served)
		_ = s.hs.Serve(ep.Listener)
	}()
	fmt.Fprintf(w, "mcp: serving %s (tool %s, token %v)\n", s.url, cfg.toolName(), ep.Token != "")
	return s, nil
}

// stop ends the service in order: the MCP handler (calls in flight are
// cancelled), the HTTP server and its listener, then the worker, which
// releases the engine objects it created. It waits for all of it within
// ctx.
func (s *service) stop(ctx context.Context) error {
	var errs []error
	if err := s.mcp.Shutdown(ctx); err != nil {
		errs = append(errs, fmt.Errorf("MCP handler: %w", err))
	}
	if err := s.hs.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		errs = append(errs, fmt.Errorf("HTTP server: %w", err))
		s.hs.Close()
	}
	select {
	case <-s.served:
	case <-ctx.Done():
		errs = append(errs, fmt.Errorf("HTTP server: %w", ctx.Err()))
	}
	if err := s.w.close(ctx); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// stopTimeout bounds an unload: the grace of a command in flight, and
// time for the HTTP server.
func (s *service) stopTimeout() time.Duration { return s.cfg.Grace + 10*time.Second }

// prefixWriter marks echo lines as the extension's in the debugger window.
type prefixWriter struct{ w io.Writer }

func (p prefixWriter) Write(b []byte) (int, error) {
	_, err := p.w.Write(append([]byte("mcp: "), b...))
	return len(b), err
}
