package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/winbridge/winbridge/internal/cli"
	"github.com/winbridge/winbridge/internal/dbgcmd"
	"github.com/winbridge/winbridge/internal/httpserve"
	"github.com/winbridge/winbridge/winexec"
)

// Defaults of the settings.
const (
	defaultHTTP         = "127.0.0.1:8790"
	defaultCDB          = "cdb.exe"
	defaultTimeout      = 60 * time.Second
	defaultStartTimeout = 2 * time.Minute
	defaultGrace        = 5 * time.Second
	defaultMaxOutput    = 1 << 20
	defaultEchoMaxText  = 1024
)

// ctrlB is the line that makes a cdb remote client exit without ending the
// debugging server (CTRL+B, then ENTER); -quit accepts it as "ctrl-b".
const ctrlB = "\x02"

// Config says how to open the cdb session and how to run commands in it.
type Config struct {
	// CDB is the debugger: a name on PATH, a Linux path, or (without a
	// launcher) a Windows path, translated for WSL interop.
	CDB string
	// Launcher is the command prefix that starts CDB, e.g. ["wine"]; empty
	// under WSL, where the kernel runs .exe files through interop.
	Launcher []string
	// Args are extra cdb options placed before the target, e.g. -y PATH.
	Args []string
	// Exactly one target: Dump (cdb -z), PID (cdb -pd -p) or Remote (cdb
	// -remote, e.g. "tcp:server=host,port=5005").
	Dump   string
	PID    int
	Remote string
	// Timeout bounds one command; StartTimeout bounds opening the session
	// (cdb loads the dump or attaches before its first prompt).
	Timeout, StartTimeout time.Duration
	// Grace is how long cdb gets to finish after an interrupt (a timed-out
	// command) or to exit after the quit command, before its process tree
	// is killed.
	Grace time.Duration
	// MaxOutput caps the bytes of output kept per command.
	MaxOutput int
	// CodePage decodes output that is not UTF-8 (0: Windows-1252).
	CodePage int
	// Quit is the line that ends the session; empty means QuitCommand's
	// default for the target.
	Quit string
	// AllowSessionEnd lets commands that end, detach, restart or unload
	// the session through (q, .kill, .detach; see internal/dbgcmd). The
	// next command opens a new session. The flags' default depends on the
	// target (see parseSettings); the zero Config refuses them.
	AllowSessionEnd bool
	// AllowHostCommands lets commands that reach past the session to the
	// host or the network through (.shell, .load, .logopen, .sympath...).
	AllowHostCommands bool
	// ExtensionModules names extension modules that !module.command may
	// call besides the debugger's own (see dbgcmd.Policy).
	ExtensionModules []string
}

// QuitCommand returns the line that ends the session cleanly: q for a dump
// (nothing runs), qd for an attached process (detach, so the process
// survives the debugger), and CTRL+B for a remote client (exit the client
// only; q there would end the debugging server and its target too).
func (c *Config) QuitCommand() string {
	switch {
	case c.Quit != "":
		return c.Quit
	case c.PID != 0:
		return "qd"
	case c.Remote != "":
		return ctrlB
	default:
		return "q"
	}
}

// Argv returns the command line that starts cdb: launcher, cdb, extra
// options, target.
func (c *Config) Argv() ([]string, error) {
	cdb := c.CDB
	if len(c.Launcher) == 0 && winexec.IsWindowsPath(cdb) {
		p, err := winexec.WinToWSL(cdb)
		if err != nil {
			return nil, fmt.Errorf("translating the cdb path %q for WSL interop: %w", cdb, err)
		}
		cdb = p
	}
	argv := append(append(append([]string(nil), c.Launcher...), cdb), c.Args...)
	switch {
	case c.Dump != "":
		argv = append(argv, "-z", c.Dump)
	case c.PID != 0:
		// -pd: cdb detaches however the session ends. Without it a cdb
		// killed because a command did not come back within the grace
		// period (or a q the operator allowed) ended the attached process,
		// which the refusal of session-ending commands is there to prevent.
		if !slices.Contains(c.Args, "-pd") {
			argv = append(argv, "-pd")
		}
		argv = append(argv, "-p", strconv.Itoa(c.PID))
	case c.Remote != "":
		argv = append(argv, "-remote", c.Remote)
	}
	return argv, nil
}

// Target describes the target for people: "dump C:\x.dmp". It goes into
// logs, errors, the tool description and the initialize instructions, so
// a remote spec is shown with its secrets masked (redactSpec).
func (c *Config) Target() string {
	switch {
	case c.Dump != "":
		return "dump " + c.Dump
	case c.PID != 0:
		return "process " + strconv.Itoa(c.PID)
	default:
		return "remote " + redactSpec(c.Remote)
	}
}

// check reports the first setting that cannot work.
func (c *Config) check() error {
	n := 0
	for _, set := range []bool{c.Dump != "", c.PID != 0, c.Remote != ""} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		return errors.New("name exactly one target: -dump FILE, -pid PID or -remote SPEC (WINDBG_DUMP, WINDBG_PID, WINDBG_REMOTE)")
	case c.PID < 0:
		return fmt.Errorf("-pid %d: not a process id", c.PID)
	case c.CDB == "":
		return errors.New("-cdb is empty")
	case c.Timeout <= 0, c.StartTimeout <= 0, c.Grace <= 0:
		return errors.New("-timeout, -start-timeout and -grace must be positive")
	case c.MaxOutput <= 0:
		return errors.New("-max-output must be positive")
	case strings.ContainsAny(c.Quit, "\r\n"):
		return errors.New("-quit must be one line")
	}
	return nil
}

// settings are the server's configuration: the session's Config and how to
// serve it.
type settings struct {
	cfg         Config
	httpAddr    string
	http        httpserve.Config    // httpAddr's options: remote access and token
	endpoint    *httpserve.Endpoint // the checked listener, once run has it
	dotNaming   bool                // -dotted-names
	echoMaxText int
	logLevel    slog.Level
	version     bool
}

// parseSettings reads the environment (through getenv) and then the flags,
// which win. -help lists every setting with its variable and the value in
// effect.
func parseSettings(args []string, getenv func(string) string, out io.Writer) (*settings, error) {
	s := &settings{}
	fs := flag.NewFlagSet("windbg", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(out, "Usage: windbg [flags]\n\n"+
			"An MCP server (Streamable HTTP at /mcp) with one tool, windbg_eval, that runs debugger\n"+
			"commands in a cdb.exe session on a dump, an attached process or a remote debugging server.\n"+
			"Each flag defaults to its environment variable, shown in brackets.\n\n")
		fs.PrintDefaults()
	}
	var errs []error
	envInt := func(name string) int {
		v := getenv(name)
		if v == "" {
			return 0
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: not a number", name, v))
		}
		return n
	}
	envDur := func(name string, def time.Duration) time.Duration {
		v := getenv(name)
		if v == "" {
			return def
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: %w", name, v, err))
		}
		return d
	}
	c := &s.cfg
	fs.StringVar(&s.httpAddr, "http", orDefault(getenv("WINDBG_HTTP"), defaultHTTP), "serve MCP at http://`addr`/mcp; loopback only unless -http-allow-remote [WINDBG_HTTP]")
	fs.BoolVar(&s.http.AllowRemote, "http-allow-remote", getenv("WINDBG_HTTP_ALLOW_REMOTE") == "1", "allow -http on an address other hosts can reach (0.0.0.0, :port, a LAN address); needs a token [WINDBG_HTTP_ALLOW_REMOTE=1]")
	fs.StringVar(&s.http.TokenFile, "http-token-file", getenv("WINDBG_HTTP_TOKEN_FILE"), "require Authorization: Bearer <token>, the token read from this `file` (or set WINDBG_HTTP_TOKEN; never on the command line) [WINDBG_HTTP_TOKEN_FILE]")
	s.http.Token = getenv("WINDBG_HTTP_TOKEN")
	fs.StringVar(&c.CDB, "cdb", orDefault(getenv("WINDBG_CDB"), defaultCDB), "the debugger `program`: a name on PATH, a Linux path, or a Windows path [WINDBG_CDB]")
	launcher := fs.String("launcher", getenv("WINDBG_LAUNCHER"), "`command` prefix that starts cdb, e.g. wine (empty under WSL interop) [WINDBG_LAUNCHER]")
	extra := new(string)
	*extra = getenv("WINDBG_CDB_ARGS")
	fs.Var(redactedFlag{extra}, "cdb-args", "extra cdb `options` before the target, space-separated, e.g. \"-y srv*C:\\symbols\" [WINDBG_CDB_ARGS]")
	fs.StringVar(&c.Dump, "dump", getenv("WINDBG_DUMP"), "open this dump `file` (cdb -z), as cdb names it, e.g. C:\\dumps\\app.dmp [WINDBG_DUMP]")
	fs.IntVar(&c.PID, "pid", envInt("WINDBG_PID"), "attach to this Windows process `id` (cdb -pd -p: a killed cdb detaches); shutdown detaches with qd [WINDBG_PID]")
	c.Remote = getenv("WINDBG_REMOTE")
	fs.Var(redactedFlag{&c.Remote}, "remote", "connect to a debugging `server` (cdb -remote), e.g. tcp:server=host,port=5005; a password in it is never shown [WINDBG_REMOTE]")
	fs.DurationVar(&c.Timeout, "timeout", envDur("WINDBG_TIMEOUT", defaultTimeout), "`limit` of one command; partial output is returned after it [WINDBG_TIMEOUT]")
	fs.DurationVar(&c.StartTimeout, "start-timeout", envDur("WINDBG_START_TIMEOUT", defaultStartTimeout), "`limit` of opening the session (loading the dump, attaching) [WINDBG_START_TIMEOUT]")
	fs.DurationVar(&c.Grace, "grace", envDur("WINDBG_GRACE", defaultGrace), "`time` cdb gets to stop after an interrupt or the quit command before it is killed [WINDBG_GRACE]")
	fs.IntVar(&c.MaxOutput, "max-output", orInt(envInt("WINDBG_MAX_OUTPUT"), defaultMaxOutput), "`bytes` of output kept per command [WINDBG_MAX_OUTPUT]")
	fs.IntVar(&c.CodePage, "codepage", envInt("WINDBG_CODEPAGE"), "Windows code `page` of output that is not UTF-8 (0: Windows-1252) [WINDBG_CODEPAGE]")
	quit := fs.String("quit", getenv("WINDBG_QUIT"), "`line` that ends the session (default q for a dump, qd for -pid, ctrl-b for -remote) [WINDBG_QUIT]")
	allowEnd := &optionalBool{}
	if v := getenv("WINDBG_ALLOW_SESSION_END"); v != "" {
		if err := allowEnd.Set(v); err != nil {
			errs = append(errs, fmt.Errorf("WINDBG_ALLOW_SESSION_END=%q: want 1 or 0", v))
		}
	}
	fs.Var(allowEnd, "allow-session-end", "let the model run commands that end the session (q, qd, .kill, .detach, .restart...); the next command opens a new session. Unset, allowed for -dump and refused for -pid and -remote (q ends an attached process; on a remote client, the debugging server) [WINDBG_ALLOW_SESSION_END=1 or 0]")
	fs.BoolVar(&c.AllowHostCommands, "allow-host-commands", getenv("WINDBG_ALLOW_HOST_COMMANDS") == "1", "let the model run commands that reach the host or network: .shell, .create, .load, .logopen, .writemem, .dump, .sympath, .server... Without both this and a session-end allowance, aliases, .foreach, scripts and dx's Debugger.Utility are refused too [WINDBG_ALLOW_HOST_COMMANDS=1]")
	extModules := fs.String("extension-modules", getenv("WINDBG_EXTENSION_MODULES"), "comma-separated extension `modules` (e.g. mex,sosex) that !module.command may call besides the debugger's own (ext, exts, uext, kext, ntsdexts, kdexts, dbghelp, wow64exts, sos, wmitrace, wdfkd, rcdrkd); the debugger loads a module it has not loaded from its extension path, which holds every PATH directory [WINDBG_EXTENSION_MODULES]")
	fs.BoolVar(&s.dotNaming, "dotted-names", getenv("WINDBG_DOTTED_NAMES") == "1", "name the tool windbg.eval as earlier releases did; hosts such as Claude Desktop reject it [WINDBG_DOTTED_NAMES=1]")
	fs.Bool("snake-case", false, "deprecated and ignored: the tool is windbg_eval by default")
	fs.IntVar(&s.echoMaxText, "echo-max", orInt(envInt("WINDBG_ECHO_MAX"), defaultEchoMaxText), "`bytes` of each body shown by the request echo on stderr before it is cut [WINDBG_ECHO_MAX]")
	level := fs.String("log-level", orDefault(getenv("WINDBG_LOG_LEVEL"), "info"), "`level` of the server's own log on stderr: debug, info, warn, error [WINDBG_LOG_LEVEL]")
	fs.BoolVar(&s.version, "version", false, "print the version and exit")
	if err := cli.Parse(fs, args, out); err != nil {
		return nil, err
	}
	if s.version {
		return s, nil
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for _, m := range strings.Split(*extModules, ",") {
		if m = strings.TrimSpace(m); m == "" {
			continue
		}
		if err := dbgcmd.CheckModuleName(m); err != nil {
			return nil, fmt.Errorf("-extension-modules (or WINDBG_EXTENSION_MODULES): %w", err)
		}
		c.ExtensionModules = append(c.ExtensionModules, m)
	}
	c.Launcher = strings.Fields(*launcher)
	c.Args = strings.Fields(*extra)
	c.Quit = *quit
	// Ending the session loses only debugger state on a dump, which the
	// next command reopens; on an attached process q ends the process,
	// and on a remote client it ends the debugging server and its target.
	c.AllowSessionEnd = c.Dump != ""
	if allowEnd.set {
		c.AllowSessionEnd = allowEnd.value
	}
	if strings.EqualFold(c.Quit, "ctrl-b") {
		c.Quit = ctrlB
	}
	if err := s.logLevel.UnmarshalText([]byte(*level)); err != nil {
		return nil, fmt.Errorf("-log-level: %w", err)
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return s, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func orInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// optionalBool is a boolean flag that knows whether it was given, so that
// its default can depend on other settings.
type optionalBool struct{ set, value bool }

func (b *optionalBool) String() string {
	if b == nil || !b.set {
		return ""
	}
	return strconv.FormatBool(b.value)
}

func (b *optionalBool) Set(v string) error {
	x, err := strconv.ParseBool(v)
	if err != nil {
		return err
	}
	b.set, b.value = true, x
	return nil
}

func (b *optionalBool) IsBoolFlag() bool { return true }
