// Command mcpc is a command-line MCP client: it starts a server (or
// connects to a remote one), runs one request and prints the result as
// JSON.
//
//	mcpc [FLAGS] SUBCOMMAND [ARGS...] [-- COMMAND ARGS...]
//
// The server is chosen by --config FILE --server NAME (an "mcpServers"
// file, as Claude Desktop reads, or a VS Code "servers" file, whose entry
// runs a "command" or names a Streamable HTTP "url"), by --npx
// PACKAGE[@VERSION] [ARGS after --], by --url URL (a remote server over
// Streamable HTTP), or by the command after --.
//
// A remote server that asks for OAuth authorization gets the token that
// mcpc login stored (--store, the same default file), refreshed when it
// expires; with none stored, mcpc runs the browser flow, printing the URL
// to open on stderr, and stores the result. A config entry whose
// "headers" carry its own Authorization is sent as it is, without OAuth.
//
// A server run as a command inherits the allowlisted environment of
// client.DefaultEnv (home, network, certificates, locale); -e KEY=VALUE
// adds to it, -e KEY passes this process's KEY, and --inherit-env passes
// everything. Subcommands:
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
// back to 127.0.0.1) and keeps the credentials in FILE, mode 0600, for
// later runs with --url URL (or a config entry with that "url").
//
// The exit status is 0 on success, 1 when a tool result has isError, and
// 2 on any other failure, with the error on stderr. Progress notifications
// of a call go to stderr with --progress (on by default when stderr is a
// terminal).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/cli"
	"github.com/winbridge/winbridge/internal/termtext"
	"github.com/winbridge/winbridge/internal/urlshow"
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
	url, store, clientID          string // a remote server, and its OAuth client
	port                          int
	timeout                       time.Duration
	verbose, progress, version    bool
	inheritEnv                    bool
	env                           []string // KEY=VALUE for the server
}

// npxNotice is how long an npx server may take to answer before mcpc says
// that a first run may be downloading.
var npxNotice = 2 * time.Second

// lockedWriter serialises writes to stderr, which the server's stderr
// lines, notices and progress reach from their own goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	stderr = &lockedWriter{w: stderr}
	if len(args) > 0 && args[0] == "login" {
		return login(ctx, args[1:], stdout, stderr)
	}
	f, sub, subArgs, command, err := parseArgs(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		printError(stderr, err)
		return exitFailure
	}
	if f.version {
		fmt.Fprintln(stdout, cli.VersionString("mcpc"))
		return exitOK
	}
	// Everything that can be checked without the server is, before it is
	// started (an npx server may take minutes).
	if err := checkSubcommand(sub, subArgs); err != nil {
		printError(stderr, err)
		return exitFailure
	}
	cmd, rem, copts, sc, err := serverCommand(f, command)
	if err != nil {
		printError(stderr, err)
		return exitFailure
	}
	// SIGTERM (what service managers and `timeout` send) ends the run as
	// Ctrl-C does: through the deferred Close, which stops the server
	// and its process tree. Left to the default action, it would kill
	// mcpc alone and orphan the server.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeoutCause(ctx, f.timeout, fmt.Errorf("the -timeout of %v expired: %w", f.timeout, context.DeadlineExceeded))
	defer cancel()

	var p session
	if rem != nil {
		p, err = connectRemote(ctx, f, *rem, copts, stderr)
	} else {
		p, err = launch(ctx, f, cmd, copts, stderr)
	}
	if err != nil {
		printError(stderr, err)
		return exitFailure
	}
	defer p.Close()

	var callOpts []client.CallOption
	if f.progress {
		callOpts = append(callOpts, client.WithProgress(func(pp *mcp.ProgressParams) { printProgress(stderr, pp) }))
	}
	if sc != nil && sc.Timeout > 0 {
		// The config's timeoutMs bounds the request, within -timeout
		// (the client's own Timeout yields to a deadline already set).
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, sc.Timeout, fmt.Errorf("%s.timeoutMs of %v expired: %w", sc.Path(), sc.Timeout, context.DeadlineExceeded))
		defer cancel()
	}
	result, err := request(ctx, p, sub, subArgs, callOpts...)
	if err != nil {
		printError(stderr, err)
		return exitFailure
	}
	if err := writeJSON(stdout, result); err != nil {
		printError(stderr, err)
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
        | --url URL   (Streamable HTTP; OAuth with the tokens of mcpc login, --store)
environment: the server gets the home, network (proxies, certificates), locale and temp-dir
  variables, never one that looks like a credential; -e KEY=VALUE adds one, --inherit-env all

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
	fs.StringVar(&f.url, "url", "", "the Streamable HTTP `URL` of a remote server")
	fs.StringVar(&f.store, "store", defaultStore(), "the OAuth token `file` of a remote server (what mcpc login writes)")
	fs.StringVar(&f.clientID, "client-id", "", "a pre-registered OAuth client `id` for a remote server (default: dynamic registration)")
	fs.IntVar(&f.port, "port", 0, "the loopback `port` of the OAuth redirect (0: any free one)")
	fs.StringVar(&f.protocol, "protocol", "", "pin the protocol `version` (default: negotiate)")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Minute, "bound on the whole run, start-up included")
	fs.BoolVar(&f.verbose, "v", false, "show the server's stderr")
	fs.Func("e", "add `KEY=VALUE` to the server's environment (repeatable); -e KEY passes this process's KEY", func(v string) error {
		k, _, hasValue := strings.Cut(v, "=")
		if k == "" || strings.ContainsAny(k, "\x00") {
			return fmt.Errorf("want KEY=VALUE or KEY, got %q", v)
		}
		if !hasValue {
			val, ok := os.LookupEnv(k)
			if !ok {
				return fmt.Errorf("%s is not set in this environment (-e KEY=VALUE sets it)", k)
			}
			v = k + "=" + val
		}
		f.env = append(f.env, v)
		return nil
	})
	fs.BoolVar(&f.inheritEnv, "inherit-env", false, "pass this process's whole environment to the server, credentials included")
	fs.BoolVar(&f.progress, "progress", isTerminal(stderr), "show a call's progress notifications on stderr (default: on when stderr is a terminal)")
	fs.BoolVar(&f.version, "version", false, "print the version and exit")

	if i := slices.Index(args, "--"); i >= 0 {
		args, command = args[:i], args[i+1:]
	}
	var positional []string
	for {
		if err := cli.Parse(fs, args, stderr); err != nil {
			return f, "", nil, nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
	if f.version {
		return f, "", nil, nil, nil
	}
	if len(positional) == 0 {
		return f, "", nil, nil, errors.New("no subcommand (tools, call, resources, read, prompts, get; -help for more)")
	}
	sources := 0
	for _, set := range []bool{f.config != "", f.npx != "", f.url != "", f.npx == "" && len(command) > 0} {
		if set {
			sources++
		}
	}
	switch {
	case sources == 0:
		return f, "", nil, nil, errors.New("no server: use --config and --server, --npx, --url, or -- COMMAND")
	case sources > 1:
		return f, "", nil, nil, errors.New("choose one server: --config, --npx, --url or -- COMMAND")
	case f.timeout <= 0:
		return f, "", nil, nil, errors.New("--timeout must be positive")
	}
	return f, positional[0], positional[1:], command, nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	if l, ok := w.(*lockedWriter); ok {
		w = l.w
	}
	f, ok := w.(*os.File)
	return ok && cli.IsTerminal(f)
}

// serverCommand resolves the chosen server to a command, or to a remote
// server, and its client options, reading the config file if there is one
// (and returning its entry).
func serverCommand(f flags, command []string) (*client.Command, *remote, *client.Options, *client.ServerConfig, error) {
	copts := &client.Options{ProtocolVersion: f.protocol, ClientInfo: &mcp.Implementation{Name: "mcpc", Version: "0.1.0"}}
	var cmd *client.Command
	var rem *remote
	var sc *client.ServerConfig
	switch {
	case f.config != "":
		cfg, err := client.LoadConfig(f.config)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		sc, err = pickServer(cfg, f.config, f.server)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		copts = sc.ClientOptions(copts)
		if sc.URL != "" {
			rem = &remote{endpoint: sc.URL, headers: sc.Headers}
		} else {
			cmd = sc.CommandSpec()
		}
	case f.url != "":
		u, err := url.Parse(f.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			// Not repeated: a mistyped URL (htps://me:pw@h) may still carry
			// a password or a token, and errors end up in CI logs.
			return nil, nil, nil, nil, errors.New("--url: want an http or https URL with a host (the value is not shown: it may hold a credential)")
		}
		if u.User != nil {
			// It would be printed with every error that names the server.
			return nil, nil, nil, nil, errors.New("--url: has a user:password part; mcpc authorizes with OAuth (mcpc login)")
		}
		rem = &remote{endpoint: f.url}
	case f.npx != "":
		var err error
		if cmd, err = client.Npx(f.npx, command...); err != nil {
			return nil, nil, nil, nil, err
		}
	default:
		cmd = &client.Command{Path: command[0], Args: command[1:]}
	}
	if rem != nil {
		if len(f.env) > 0 || f.inheritEnv || len(command) > 0 {
			return nil, nil, nil, nil, fmt.Errorf("-e, --inherit-env and -- COMMAND apply to a server run as a command, not to %s", shownEndpoint(rem.endpoint))
		}
		return nil, rem, copts, sc, nil
	}
	cmd.Env = append(cmd.Env, f.env...)
	cmd.InheritEnv = f.inheritEnv
	return cmd, nil, copts, sc, nil
}

// shownEndpoint is the part of a server's URL that mcpc's messages show,
// as urlshow decides. Services put the key in the path or the query
// (https://mcp.example/mcp/KEY, ?api_key=KEY), and a message on stderr
// ends up in CI logs and bug reports.
func shownEndpoint(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "the remote server"
	}
	return urlshow.URL(u)
}

// pickServer finds the --server of a config, or says which there are.
func pickServer(cfg *client.Config, file, name string) (*client.ServerConfig, error) {
	var names []string
	for n, sc := range cfg.Servers {
		if sc.Disabled {
			n += " (disabled)"
		}
		names = append(names, n)
	}
	slices.Sort(names)
	have := "it has none"
	if len(names) > 0 {
		have = "it has: " + strings.Join(names, ", ")
	}
	if name == "" {
		return nil, fmt.Errorf("--config needs --server NAME; %s", have)
	}
	sc, ok := cfg.Servers[name]
	if !ok {
		return nil, fmt.Errorf("%s has no server %q; %s", file, name, have)
	}
	if sc.Disabled {
		return nil, fmt.Errorf("%s: server %q is disabled (%s.disabled is true)", file, name, sc.Path())
	}
	return sc, nil
}

// launch starts the chosen server. When an npx server has not answered
// after npxNotice, it says on stderr that a first run may be downloading.
func launch(ctx context.Context, f flags, cmd *client.Command, copts *client.Options, stderr io.Writer) (*client.Process, error) {
	opts := &client.ProcessOptions{
		Client: copts,
		// Diagnostics only when asked for: stdout is for the result, and
		// stderr for the error that explains a failure.
		Logger: slog.New(slog.DiscardHandler),
	}
	if f.verbose {
		opts.OnStderr = func(line string) { fmt.Fprintln(stderr, "server:", printable(line, 16<<10)) }
		opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if cmd.IsNpx() {
		t := time.AfterFunc(npxNotice, func() {
			fmt.Fprintf(stderr, "mcpc: npx has not started the server after %v; a first run downloads the package, which can take a minute (-timeout bounds the wait, -v shows npm's output)\n", npxNotice)
		})
		defer t.Stop()
	}
	return client.Launch(ctx, cmd, opts)
}

// printProgress writes a progress notification on one line. The server's
// message is shown with control characters escaped: it must not drive the
// terminal.
func printProgress(w io.Writer, p *mcp.ProgressParams) {
	var b strings.Builder
	b.WriteString("mcpc: progress ")
	b.WriteString(strconv.FormatFloat(p.Progress, 'f', -1, 64))
	if p.Total != nil {
		b.WriteString("/" + strconv.FormatFloat(*p.Total, 'f', -1, 64))
	}
	if p.Message != "" {
		b.WriteString(" " + printable(p.Message, 500))
	}
	b.WriteByte('\n')
	io.WriteString(w, b.String())
}

// printable is s shown on one line (termtext.EscapeLine): what a terminal
// would act on or hide, line breaks and bytes that are not UTF-8 escaped.
// At most max bytes of s are shown.
func printable(s string, max int) string {
	if len(s) > max {
		return termtext.EscapeLine(s[:max]) + "..."
	}
	return termtext.EscapeLine(s)
}

// writeJSON prints v as indented JSON on w, escaped for a terminal
// (terminalSafeJSON): the result is the server's text, printed where a
// user reads it.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(terminalSafeJSON(buf.Bytes()))
	return err
}

// terminalSafeJSON escapes as \uXXXX, in the JSON text b, what a terminal
// acts on, hides or reorders that encoding/json leaves as it is (the runes
// termtext.Printable refuses: DEL, the C1 controls, bidirectional
// overrides and isolates, zero-width and other format characters, spaces
// but U+0020), and any C0 control but the tab, CR and LF of its
// indentation. Valid JSON has them only inside strings, where \uXXXX is
// the same character: the value printed is unchanged, and a right-to-left
// override in a result no longer reorders what the user sees (a file
// "txt.exe" shown as "exe.txt"). Invalid UTF-8, which a raw result could
// carry, becomes \ufffd, as encoding/json would decode it.
func terminalSafeJSON(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			out = append(out, `\ufffd`...)
		case r == '\t' || r == '\n' || r == '\r' || termtext.Printable(r) || r == utf8.RuneError:
			out = append(out, b[i:i+n]...)
		case r > 0xffff:
			// Past the BMP, JSON's \u escape is a surrogate pair.
			hi, lo := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += n
	}
	return out
}

// maxErrorShown bounds an error as printed: a server's error message may
// be as long as a message.
const maxErrorShown = 64 << 10

// printError writes err on one line or several, each escaped as printable
// does: an error may quote the server (its error messages, the tail of its
// stderr), which must not drive the terminal any more than its progress
// messages may. Line breaks are kept; a stderr excerpt is read by lines.
func printError(w io.Writer, err error) {
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		lines[i] = printable(l, maxErrorShown)
	}
	s := strings.Join(lines, "\n")
	if len(s) > maxErrorShown {
		s = strings.ToValidUTF8(s[:maxErrorShown], "") + "..."
	}
	fmt.Fprintln(w, "mcpc: "+s)
}

// checkSubcommand checks the subcommand and its arguments.
func checkSubcommand(sub string, args []string) error {
	want := func(min, max int, usage string) error {
		if len(args) < min || len(args) > max {
			return fmt.Errorf("usage: mcpc %s", usage)
		}
		return nil
	}
	switch sub {
	case "tools", "resources", "prompts":
		return want(0, 0, sub)
	case "read":
		return want(1, 1, "read URI")
	case "call", "get":
		usage := "call TOOL [JSON]"
		if sub == "get" {
			usage = "get PROMPT [JSON]"
		}
		if err := want(1, 2, usage); err != nil {
			return err
		}
		if len(args) == 2 {
			var obj map[string]any
			if err := json.Unmarshal([]byte(args[1]), &obj); err != nil || obj == nil {
				return fmt.Errorf("arguments must be a JSON object: %s", args[1])
			}
		}
		return nil
	}
	return fmt.Errorf("unknown subcommand %q (tools, call, resources, read, prompts, get)", sub)
}

// session is the connected server: a *client.Process, or the
// *remoteSession of a remote one.
type session interface {
	ListTools(ctx context.Context, opts ...client.CallOption) ([]*mcp.Tool, error)
	CallTool(ctx context.Context, name string, args any, opts ...client.CallOption) (*mcp.CallToolResult, error)
	Call(ctx context.Context, method string, params, result any, opts ...client.CallOption) error
	Close() error
}

// request runs the subcommand and returns what to print.
func request(ctx context.Context, p session, sub string, args []string, opts ...client.CallOption) (any, error) {
	if err := checkSubcommand(sub, args); err != nil {
		return nil, err
	}
	jsonArg := func(i int) (json.RawMessage, error) {
		if len(args) <= i {
			return nil, nil
		}
		return json.RawMessage(args[i]), nil
	}
	var raw json.RawMessage
	switch sub {
	case "tools":
		tools, err := p.ListTools(ctx)
		if err != nil {
			return nil, err
		}
		return map[string]any{"tools": tools}, nil
	case "call":
		a, err := jsonArg(1)
		if err != nil {
			return nil, err
		}
		var argv any
		if a != nil {
			argv = a
		}
		return p.CallTool(ctx, args[0], argv, opts...)
	case "resources":
		return raw, listAll(ctx, p, "resources/list", &raw)
	case "read":
		return raw, p.Call(ctx, "resources/read", map[string]string{"uri": args[0]}, &raw)
	case "prompts":
		return raw, listAll(ctx, p, "prompts/list", &raw)
	case "get":
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
func listAll(ctx context.Context, p session, method string, out *json.RawMessage) error {
	merged := map[string]json.RawMessage{}
	items := []json.RawMessage{} // a server's empty list stays [], not null
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
