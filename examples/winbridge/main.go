// Command winbridge is the MCP server of the bridge: it offers the
// winexec tools (win_exec, path_wsl_to_win, path_win_to_wsl) and the hdc
// tools to an MCP client, over stdio by default.
//
// Every setting comes from the environment (the names of docs/WINDOWS.md)
// and can be overridden by a flag; `winbridge -help` lists them with the
// values in effect. `winbridge -check` reports what the server would use
// and every problem in plain words. Started by hand on a terminal, it says
// on stderr that it is an MCP server and how to connect a client.
//
// At the end of standard input, or on SIGINT or SIGTERM (stdio or -http),
// every call still running is cancelled (win_exec kills its process tree)
// and the server exits once they have returned, or after
// mcp.DefaultShutdownTimeout.
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

	"github.com/winbridge/winbridge/internal/cli"
	"github.com/winbridge/winbridge/internal/httpserve"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
	"github.com/winbridge/winbridge/winexec"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "gateway" {
		return runGateway(args[1:], stdout, stderr)
	}
	s, err := parseSettings(args, os.Getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "winbridge:", err)
		return 2
	}
	switch {
	case s.version:
		fmt.Fprintln(stdout, "winbridge", version)
		return 0
	case s.check:
		return check(s, stdout)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: s.logLevel}))
	s.cfg.Logger = log
	ex, err := winexec.New(s.cfg)
	if err != nil {
		fmt.Fprintln(stderr, "winbridge:", err)
		return 2
	}
	defer ex.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s.http.Addr = s.httpAddr
	rep, err := s.http.OpenReplicas(ctx, log)
	if err != nil {
		fmt.Fprintln(stderr, "winbridge:", err)
		if errors.Is(err, httpserve.ErrConfig) {
			return 2
		}
		return 1
	}
	if rep != nil {
		defer rep.Close()
	}
	srv := newServer(s, ex, log)

	if s.httpAddr != "" {
		return serveHTTP(ctx, s, srv, log, stderr)
	}
	if stdinIsTerminal() {
		fmt.Fprint(stderr, terminalNotice)
	}
	return serveStdio(ctx, srv, log, stderr, "winbridge")
}

// serveStdio serves srv on standard input and output until the input ends
// or ctx is done, and returns the exit status; name prefixes its messages.
func serveStdio(ctx context.Context, srv *mcp.Server, log *slog.Logger, stderr io.Writer, name string) int {
	stream, err := transport.Stdio(&transport.StreamOptions{Logger: log})
	if err != nil {
		fmt.Fprintln(stderr, name+":", err)
		return 1
	}
	if err := srv.Run(ctx, stream); err != nil && !errors.Is(err, context.Canceled) {
		log.Error(name+": serving", "err", err)
		return 1
	}
	return 0
}

// stdinIsTerminal reports whether a person, not an MCP client, started the
// server; tests replace it.
var stdinIsTerminal = func() bool { return cli.IsTerminal(os.Stdin) }

// terminalNotice is shown on stderr (stdout is the protocol's) to whoever
// starts the server on a terminal and would otherwise see it wait in
// silence.
const terminalNotice = `winbridge: this is an MCP server: it speaks JSON-RPC on stdin and stdout, for an MCP client to start.
  Connect one with:  mcpc tools -- winbridge
  or add to a client's config:  {"mcpServers": {"winbridge": {"command": "winbridge"}}}
  winbridge -check reports the setup; -help lists the settings; Ctrl-D or Ctrl-C ends it.
`

// newServer builds the MCP server with every tool of the bridge.
func newServer(s *settings, ex *winexec.Executor, log *slog.Logger) *mcp.Server {
	names := &winexec.ToolOptions{DottedNames: s.dotNaming}
	opts := &mcp.ServerOptions{
		Logger: log,
		Instructions: "Runs Windows programs (and hdc, the HarmonyOS device connector) for you from Linux/WSL. " +
			names.ToolName(winexec.ToolExec) + " takes the program and its arguments as a list: never join them into one string. " +
			"Use " + names.ToolName(winexec.ToolWSLToWin) + " / " + names.ToolName(winexec.ToolWinToWSL) +
			" to convert paths between the two sides.",
	}
	s.http.ServerOptions(opts) // -redis: the replicas' bus and keyring
	srv := mcp.NewServer(&mcp.Implementation{Name: "winbridge", Title: "WinBridge", Version: version}, opts)
	winexec.AddTools(srv, ex, names)
	if s.hdc {
		addHDCTools(srv, s, ex)
	}
	return srv
}
