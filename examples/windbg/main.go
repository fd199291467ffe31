// Command windbg is an MCP server that puts a cdb.exe (WinDbg's console
// debugger) session behind one tool, windbg_eval, on a Streamable HTTP
// endpoint at /mcp (loopback by default).
//
// The session is opened on a dump (-dump, cdb -z), an attached process
// (-pid, cdb -pd -p) or a remote debugging server (-remote, cdb -remote) and
// kept open: each call runs one command line in it, one at a time, and
// returns the text cdb printed. Completion is detected by a unique marker
// echoed after each command; a command past the timeout returns its
// partial output as a tool error. Every request is echoed to stderr.
// Shutdown sends q (qd for an attached process, CTRL+B for a remote
// client) and kills cdb's process tree if it does not exit in time.
//
// Every setting comes from the environment and can be overridden by a
// flag; `windbg -help` lists them. docs/WINDBG.md has an example session.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/winbridge/winbridge/internal/termtext"

	"github.com/winbridge/winbridge/internal/httpserve"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stderr)
	stop()
	os.Exit(code)
}

// run serves until ctx ends and returns the exit code: 0, 1 when serving
// or the session failed, 2 for bad settings.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) int {
	s, err := parseSettings(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "windbg:", err)
		return 2
	}
	if s.version {
		fmt.Fprintln(os.Stdout, "windbg", version) // stdout, where -version output is read
		return 0
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: s.logLevel}))
	// The address is checked before cdb starts: a refusal is immediate.
	hc := s.http
	hc.Addr = s.httpAddr
	ep, err := hc.Listen()
	if err != nil {
		fmt.Fprintln(stderr, "windbg:", err)
		if errors.Is(err, httpserve.ErrConfig) {
			return 2
		}
		return 1
	}
	s.endpoint = ep
	ln := ep.Listener
	sess := NewSession(s.cfg, log)
	if err := sess.Open(ctx); err != nil {
		// The error holds what cdb printed, which a dump controls.
		fmt.Fprintln(stderr, "windbg:", termtext.Escape(err.Error()))
		ln.Close()
		return 1
	}
	log.Info("windbg: serving MCP", "url", "http://"+ln.Addr().String()+"/mcp", "tool", toolName(s.dotNaming), "target", s.cfg.Target(), "token", ep.Token != "")
	if err := newServer(s, sess, log, stderr).serve(ctx, ln, log); err != nil {
		fmt.Fprintln(stderr, "windbg:", err)
		return 1
	}
	return 0
}
