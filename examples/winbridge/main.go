// Command winbridge is the MCP server of the bridge: it offers the
// winexec tools (win.exec, path.wsl_to_win, path.win_to_wsl) and the hdc
// tools to an MCP client, over stdio by default.
//
// Every setting comes from the environment (the names of docs/WINDOWS.md)
// and can be overridden by a flag; `winbridge -help` lists them with the
// values in effect. `winbridge -check` reports what the server would use
// and the first problem in plain words.
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
	ex, err := winexec.NewWithLogger(s.cfg, log)
	if err != nil {
		fmt.Fprintln(stderr, "winbridge:", err)
		return 2
	}
	defer ex.Close()
	srv := newServer(s, ex, log)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if s.httpAddr != "" {
		return serveHTTP(ctx, s, srv, log, stderr)
	}
	stream, err := transport.Stdio(&transport.StreamOptions{Logger: log})
	if err != nil {
		fmt.Fprintln(stderr, "winbridge:", err)
		return 1
	}
	if err := srv.Run(ctx, stream); err != nil && !errors.Is(err, context.Canceled) {
		log.Error("winbridge: serving", "err", err)
		return 1
	}
	return 0
}

// newServer builds the MCP server with every tool of the bridge.
func newServer(s *settings, ex *winexec.Executor, log *slog.Logger) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "winbridge", Title: "WinBridge", Version: version},
		&mcp.ServerOptions{
			Logger: log,
			Instructions: "Runs Windows programs (and hdc, the HarmonyOS device connector) for you from Linux/WSL. " +
				"win.exec takes the program and its arguments as a list: never join them into one string. " +
				"Use path.wsl_to_win / path.win_to_wsl to convert paths between the two sides.",
		})
	winexec.AddTools(srv, ex, &winexec.ToolOptions{SnakeCase: s.snakeCase})
	addHDCTools(srv, s, ex)
	return srv
}
