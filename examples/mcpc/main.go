// Command mcpc is a command-line MCP client: it starts a server, runs one
// request and prints the result as JSON.
//
//	mcpc [FLAGS] SUBCOMMAND [ARGS...] [-- COMMAND ARGS...]
//
// The server is chosen by --config FILE --server NAME (an "mcpServers"
// file, as Claude Desktop reads), by --npx PACKAGE[@VERSION] [ARGS after
// --], or by the command after --. Subcommands:
//
//	tools               list the tools
//	call TOOL [JSON]    call a tool with JSON arguments
//	resources           list the resources
//	read URI            read a resource
//	prompts             list the prompts
//	get PROMPT [JSON]   get a prompt with JSON arguments
//
// and, for a remote server that requires OAuth,
//
//	mcpc login [--store FILE] [--port N] [--client-id ID] URL
//
// authorizes in a browser (the URL to open is printed; the redirect comes
// back to 127.0.0.1) and keeps the credentials in FILE, mode 0600.
//
// The exit status is 0 on success, 1 when a tool result has isError, and
// 2 on any other failure, with the error on stderr.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
)

// Exit statuses.
const (
	exitOK        = 0
	exitToolError = 1
	exitFailure   = 2
)

type flags struct {
	config, server, npx, protocol string
	timeout                       time.Duration
	verbose                       bool
}

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "login" {
		return login(ctx, args[1:], stdout, stderr)
	}
	f, sub, subArgs, command, err := parseArgs(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintln(stderr, "mcpc:", err)
		return exitFailure
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()

	p, err := launch(ctx, f, command, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "mcpc:", err)
		return exitFailure
	}
	defer p.Close()

	result, err := request(ctx, p, sub, subArgs)
	if err != nil {
		fmt.Fprintln(stderr, "mcpc:", err)
		return exitFailure
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(result); err != nil {
		fmt.Fprintln(stderr, "mcpc:", err)
		return exitFailure
	}
	if r, ok := result.(*mcp.CallToolResult); ok && r.IsError {
		return exitToolError
	}
	return exitOK
}

func usage(fs *flag.FlagSet, w io.Writer) func() {
	return func() {
		fmt.Fprint(w, `usage: mcpc [FLAGS] SUBCOMMAND [ARGS...] [-- COMMAND ARGS...]

subcommands: tools | call TOOL [JSON] | resources | read URI | prompts | get PROMPT [JSON]
            login [--store FILE] [--port N] [--client-id ID] URL   (OAuth, remote servers)
server: --config FILE --server NAME | --npx PACKAGE[@VERSION] [-- ARGS] | -- COMMAND ARGS...

flags:
`)
		fs.PrintDefaults()
	}
}

// parseArgs splits the command line: flags (before or after the
// subcommand), the subcommand and its arguments, and what follows --.
func parseArgs(args []string, stderr io.Writer) (f flags, sub string, subArgs, command []string, err error) {
	fs := flag.NewFlagSet("mcpc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = usage(fs, stderr)
	fs.StringVar(&f.config, "config", "", "an mcpServers JSON `file`")
	fs.StringVar(&f.server, "server", "", "the `name` of the server in --config")
	fs.StringVar(&f.npx, "npx", "", "run the npm `package` with npx -y (arguments after --)")
	fs.StringVar(&f.protocol, "protocol", "", "pin the protocol `version` (default: negotiate)")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Minute, "bound on the whole run, start-up included")
	fs.BoolVar(&f.verbose, "v", false, "show the server's stderr")

	if i := slices.Index(args, "--"); i >= 0 {
		args, command = args[:i], args[i+1:]
	}
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return f, "", nil, nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
	if len(positional) == 0 {
		fs.Usage()
		return f, "", nil, nil, errors.New("no subcommand")
	}
	sources := 0
	for _, set := range []bool{f.config != "", f.npx != "", f.npx == "" && len(command) > 0} {
		if set {
			sources++
		}
	}
	switch {
	case sources == 0:
		return f, "", nil, nil, errors.New("no server: use --config and --server, --npx, or -- COMMAND")
	case sources > 1:
		return f, "", nil, nil, errors.New("choose one server: --config, --npx or -- COMMAND")
	case f.config != "" && f.server == "":
		return f, "", nil, nil, errors.New("--config needs --server NAME")
	case f.timeout <= 0:
		return f, "", nil, nil, errors.New("--timeout must be positive")
	}
	return f, positional[0], positional[1:], command, nil
}

// launch starts the chosen server.
func launch(ctx context.Context, f flags, command []string, stderr io.Writer) (*client.Process, error) {
	var cmd *client.Command
	opts := &client.ProcessOptions{
		Client: &client.Options{ProtocolVersion: f.protocol, ClientInfo: &mcp.Implementation{Name: "mcpc", Version: "0.1.0"}},
		// Diagnostics only when asked for: stdout is for the result, and
		// stderr for the error that explains a failure.
		Logger: slog.New(slog.DiscardHandler),
	}
	if f.verbose {
		opts.OnStderr = func(line string) { fmt.Fprintln(stderr, "server:", line) }
		opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	switch {
	case f.config != "":
		cfg, err := client.LoadConfig(f.config)
		if err != nil {
			return nil, err
		}
		sc, ok := cfg.Servers[f.server]
		if !ok {
			return nil, fmt.Errorf("%s: no server %q", f.config, f.server)
		}
		cmd = sc.CommandSpec()
		if sc.Timeout > 0 {
			opts.Client.Timeout = sc.Timeout
		}
	case f.npx != "":
		var err error
		if cmd, err = client.Npx(f.npx, command...); err != nil {
			return nil, err
		}
	default:
		cmd = &client.Command{Path: command[0], Args: command[1:]}
	}
	return client.Launch(ctx, cmd, opts)
}

// request runs the subcommand and returns what to print.
func request(ctx context.Context, p *client.Process, sub string, args []string) (any, error) {
	want := func(min, max int, usage string) error {
		if len(args) < min || len(args) > max {
			return fmt.Errorf("usage: mcpc %s", usage)
		}
		return nil
	}
	jsonArg := func(i int) (json.RawMessage, error) {
		if len(args) <= i {
			return nil, nil
		}
		b := json.RawMessage(args[i])
		var obj map[string]any
		if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
			return nil, fmt.Errorf("arguments must be a JSON object: %s", args[i])
		}
		return b, nil
	}
	var raw json.RawMessage
	switch sub {
	case "tools":
		if err := want(0, 0, "tools"); err != nil {
			return nil, err
		}
		tools, err := p.ListTools(ctx)
		if err != nil {
			return nil, err
		}
		return map[string]any{"tools": tools}, nil
	case "call":
		if err := want(1, 2, "call TOOL [JSON]"); err != nil {
			return nil, err
		}
		a, err := jsonArg(1)
		if err != nil {
			return nil, err
		}
		var argv any
		if a != nil {
			argv = a
		}
		return p.CallTool(ctx, args[0], argv)
	case "resources":
		if err := want(0, 0, "resources"); err != nil {
			return nil, err
		}
		return raw, listAll(ctx, p, "resources/list", &raw)
	case "read":
		if err := want(1, 1, "read URI"); err != nil {
			return nil, err
		}
		return raw, p.Call(ctx, "resources/read", map[string]string{"uri": args[0]}, &raw)
	case "prompts":
		if err := want(0, 0, "prompts"); err != nil {
			return nil, err
		}
		return raw, listAll(ctx, p, "prompts/list", &raw)
	case "get":
		if err := want(1, 2, "get PROMPT [JSON]"); err != nil {
			return nil, err
		}
		a, err := jsonArg(1)
		if err != nil {
			return nil, err
		}
		params := map[string]any{"name": args[0]}
		if a != nil {
			params["arguments"] = a
		}
		return raw, p.Call(ctx, "prompts/get", params, &raw)
	}
	return nil, fmt.Errorf("unknown subcommand %q (tools, call, resources, read, prompts, get)", sub)
}

// listAll follows a list method's cursors and merges the pages' items
// (the one array member besides nextCursor and _meta) into one result.
func listAll(ctx context.Context, p *client.Process, method string, out *json.RawMessage) error {
	merged := map[string]json.RawMessage{}
	var items []json.RawMessage
	key := ""
	cursor := ""
	for range 1000 {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var page map[string]json.RawMessage
		if err := p.Call(ctx, method, params, &page); err != nil {
			return err
		}
		for k, v := range page {
			var arr []json.RawMessage
			if k != "_meta" && json.Unmarshal(v, &arr) == nil && arr != nil {
				key = k
				items = append(items, arr...)
				continue
			}
			if k != "nextCursor" {
				merged[k] = v
			}
		}
		cursor = ""
		if c, ok := page["nextCursor"]; ok {
			_ = json.Unmarshal(c, &cursor)
		}
		if cursor == "" {
			break
		}
	}
	if key != "" {
		b, err := json.Marshal(items)
		if err != nil {
			return err
		}
		merged[key] = b
	}
	b, err := json.Marshal(merged)
	*out = b
	return err
}
