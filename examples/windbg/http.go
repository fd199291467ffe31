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

	"github.com/winbridge/winbridge/internal/httpserve"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

// server is the MCP endpoint: the handler, wrapped in the echo, and the
// cdb session behind it.
type server struct {
	mcp  *mcphttp.Handler
	http http.Handler // mux with /mcp, echoed
	sess *Session
}

// newServer builds the MCP server with windbg_eval on sess, served at
// /mcp. Every request and response is summarised on echo (method, path,
// JSON-RPC method and id, status, outcome; secrets masked, long bodies
// cut); the echo never changes what passes.
func newServer(s *settings, sess *Session, log *slog.Logger, echo io.Writer) *server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "windbg", Title: "WinDbg (cdb) bridge", Version: version},
		&mcp.ServerOptions{
			Logger: log,
			Instructions: toolName(s.dotNaming) + " runs one cdb command at a time in a session kept open on " + sess.cfg.Target() +
				". Start with k (stack), lm (modules), r (registers) or !analyze -v.",
		})
	addEvalTool(srv, sess, s.dotNaming)
	// The endpoint run checked: its token, and on a remote address any
	// Host (tests serve on loopback without one).
	opts := &mcphttp.HandlerOptions{Logger: log}
	if s.endpoint != nil {
		s.endpoint.Options(opts)
	}
	h := mcphttp.NewHandler(srv, opts)
	var handler http.Handler = h
	if s.endpoint != nil {
		handler = s.endpoint.Handler(h)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcphttp.EchoHandler(handler, &transport.EchoOptions{Writer: echo, MaxText: s.echoMaxText}))
	return &server{mcp: h, http: mux, sess: sess}
}

// serve answers on ln until ctx ends, then shuts down in order: the MCP
// handler (no new calls; calls in flight are stopped), the HTTP server,
// and the cdb session (quit command, then a kill after the grace period).
func (sv *server) serve(ctx context.Context, ln net.Listener, log *slog.Logger) error {
	hs := httpserve.Server(sv.http)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-served:
		err = fmt.Errorf("serving HTTP: %w", err)
	}
	grace := sv.sess.cfg.Grace
	sctx, cancel := context.WithTimeout(context.Background(), 2*grace+5*time.Second)
	defer cancel()
	if e := sv.mcp.Shutdown(sctx); e != nil {
		log.Warn("windbg: MCP handler shutdown", "err", e)
	}
	if e := hs.Shutdown(sctx); e != nil && !errors.Is(e, http.ErrServerClosed) {
		log.Warn("windbg: HTTP shutdown", "err", e)
	}
	if e := sv.sess.Close(sctx); e != nil {
		log.Warn("windbg: closing the cdb session", "err", e)
		err = errors.Join(err, e)
	}
	return err
}
