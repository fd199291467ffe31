package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/winbridge/winbridge/internal/cli"
	"github.com/winbridge/winbridge/internal/httpserve"
	"github.com/winbridge/winbridge/winexec"
)

// settings are the server's configuration: the winexec Config from the
// environment, overridden by flags.
type settings struct {
	cfg       winexec.Config
	dotNaming bool // -dotted-names
	httpAddr  string
	http      httpserve.Config // httpAddr's options: remote access and token
	echo      bool
	logLevel  slog.Level
	version   bool
	check     bool
	hdc       bool     // offer the hdc tools
	hdcRoots  []string // hdc.Options.LocalRoots
}

// envOfFlag is the environment variable a flag overrides, read from the
// "[NAME]" (or "[NAME=1 ...]") its usage text ends with, so that the help
// output and the messages naming both can never disagree.
func envOfFlag(usage string) string {
	i := strings.LastIndexByte(usage, '[')
	if i < 0 || !strings.HasSuffix(usage, "]") {
		return ""
	}
	name, _, _ := strings.Cut(usage[i+1:len(usage)-1], "=")
	name, _, _ = strings.Cut(name, " ")
	return name
}

// envErrors keeps the problems of environment variables whose flag was not
// given (a flag wins, so a bad variable under it does not matter) and says
// which flag overrides each.
func envErrors(err error, fs *flag.FlagSet) error {
	if err == nil {
		return nil
	}
	all := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		all = j.Unwrap()
	}
	flagOf := map[string]string{}
	set := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) {
		if env := envOfFlag(f.Usage); env != "" {
			flagOf[env] = f.Name
		}
	})
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var out []error
	for _, e := range all {
		var ce *winexec.ConfigError
		if errors.As(e, &ce) {
			if f := flagOf[ce.Setting]; f != "" {
				if set[f] {
					continue
				}
				e = fmt.Errorf("%w (the -%s flag overrides %s)", e, f, ce.Setting)
			}
		}
		out = append(out, e)
	}
	return errors.Join(out...)
}

// serverSecretEnv are the variables that carry winbridge's own secrets:
// no program it runs inherits them (a program printing its environment
// would hand the model the HTTP token, or the Redis password).
var serverSecretEnv = []string{"WINBRIDGE_HTTP_TOKEN", "WINBRIDGE_REDIS_URL"}

// parseSettings reads the environment (through getenv) and then the flags,
// which win. Help output shows the values in effect.
func parseSettings(args []string, getenv func(string) string, out io.Writer) (*settings, error) {
	cfg, envErr := winexec.ConfigFromEnvFunc(getenv)
	s := &settings{cfg: cfg}
	fs := flag.NewFlagSet("winbridge", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(out, "Usage: winbridge [flags]\n\nAn MCP server that runs Windows programs from Linux/WSL. Serves stdio unless -http is given.\nEach flag defaults to its environment variable, shown in brackets.\n\n")
		fs.PrintDefaults()
	}
	backend := fs.String("backend", orDefault(cfg.Backend, winexec.BackendAuto), "`backend`: auto, powershell, pshost, direct or local [WINBRIDGE_BACKEND]")
	psExe := fs.String("ps-exe", orDefault(cfg.PowerShellExe, "powershell.exe"), "PowerShell `program`: powershell.exe, pwsh.exe or a path [WIN_PS_EXE]")
	hdcExe := fs.String("hdc-exe", cfg.HDCExe, "hdc `program` (default hdc.exe under WSL, hdc natively) [HDC_EXE]")
	allow := fs.String("allow-exe", strings.Join(orList(cfg.Policy.AllowExe, winexec.DefaultAllowExe), ","), "comma-separated `programs` win_exec may run: a name found on the search path, or an absolute path [ALLOW_EXE]")
	allowEnv := fs.String("allow-env", strings.Join(cfg.Policy.AllowEnv, ","), "comma-separated environment `names` a call may set [ALLOW_ENV]")
	passEnv := fs.String("pass-env", strings.Join(cfg.PassEnv, ","), "comma-separated `names` of this process's variables that programs inherit although their name marks a credential (GITHUB_TOKEN, OPENAI_API_KEY, ...; withheld by default); * passes all but winbridge's own [WINBRIDGE_PASS_ENV]")
	timeout := fs.Duration("timeout", orDuration(cfg.DefaultTimeout, 60*time.Second), "default `timeout` of a call; the process tree is killed after it [DEFAULT_TIMEOUT_MS]")
	maxTimeout := fs.Duration("max-timeout", orDuration(cfg.MaxTimeout, winexec.DefaultMaxTimeout), "largest `timeout` a call may ask for; larger timeoutMs values are lowered to it [MAX_TIMEOUT_MS]")
	queueTimeout := fs.Duration("queue-timeout", orDuration(cfg.QueueTimeout, winexec.DefaultQueueTimeout), "how long a call waits for a free PowerShell host (pshost) before failing as busy [WINBRIDGE_QUEUE_TIMEOUT_MS]")
	maxProcs := fs.Int("max-processes", orInt(cfg.MaxProcesses, winexec.DefaultMaxProcesses), "`number` of programs win_exec and the hdc tools run at once; a call beyond it waits within its own timeout, then fails [WINBRIDGE_MAX_PROCESSES]")
	maxOutput := fs.Int("max-output", orInt(cfg.MaxOutput, winexec.DefaultMaxOutput), "`bytes` of stdout, and of stderr, a call keeps; the rest is cut and marked [WINBRIDGE_MAX_OUTPUT]")
	poolSize := fs.Int("pshost-pool", orInt(cfg.PoolSize, winexec.DefaultPoolSize), "`number` of PowerShell processes the pshost backend keeps, 1 to 64 [WINBRIDGE_PSHOST_POOL]")
	launcher := fs.String("launcher", strings.Join(cfg.Launcher, " "), "`command` prefix that starts Windows programs (empty under WSL; wine in tests) [WINBRIDGE_LAUNCHER]")
	jobHelper := fs.String("job-helper", cfg.JobHelper, "absolute `path` of jobrun.exe (GOOS=windows go build -o jobrun.exe ./winexec/jobrun): the direct backend runs every program in a kill-on-close Windows Job Object, so a timeout kills the whole tree [WINBRIDGE_JOB_HELPER]")
	codepage := fs.Int("codepage", cfg.CodePage, "Windows code `page` for output that is not UTF-8 (0: detect) [WIN_CODEPAGE]")
	fs.BoolVar(&s.dotNaming, "dotted-names", getenv("WINBRIDGE_DOTTED_NAMES") == "1", "name tools win.exec, hdc.shell, ... as earlier releases did; hosts such as Claude Desktop reject them [WINBRIDGE_DOTTED_NAMES=1]")
	fs.Bool("snake-case", false, "deprecated and ignored: tool names are win_exec, hdc_shell, ... by default")
	fs.StringVar(&s.httpAddr, "http", getenv("WINBRIDGE_HTTP"), "serve Streamable HTTP on `addr` (e.g. 127.0.0.1:8787) instead of stdio; loopback only unless -http-allow-remote [WINBRIDGE_HTTP]")
	fs.BoolVar(&s.http.AllowRemote, "http-allow-remote", getenv("WINBRIDGE_HTTP_ALLOW_REMOTE") == "1", "allow -http on an address other hosts can reach (0.0.0.0, :port, a LAN address); needs a token [WINBRIDGE_HTTP_ALLOW_REMOTE=1]")
	fs.StringVar(&s.http.TokenFile, "http-token-file", getenv("WINBRIDGE_HTTP_TOKEN_FILE"), "require Authorization: Bearer <token> on -http, the token read from this `file` (or set WINBRIDGE_HTTP_TOKEN; never on the command line) [WINBRIDGE_HTTP_TOKEN_FILE]")
	s.http.Token = getenv("WINBRIDGE_HTTP_TOKEN")
	fs.StringVar(&s.http.Redis, "redis", getenv("WINBRIDGE_REDIS_URL"), "with -http, share sessions, streams, notifications and requestState keys with the other replicas on the Redis at `URL` (redis://, rediss://, unix://); prefer the variable, which keeps a password out of the process list; needs a build by scripts/build-redis (docs/DEPLOY.md) [WINBRIDGE_REDIS_URL]")
	fs.BoolVar(&s.echo, "echo", getenv("WINBRIDGE_ECHO") == "1", "with -http, write a summary of every request to stderr, secrets masked [WINBRIDGE_ECHO=1]")
	level := fs.String("log-level", orDefault(getenv("WINBRIDGE_LOG_LEVEL"), "info"), "`level` of the server's own log on stderr: debug, info, warn, error [WINBRIDGE_LOG_LEVEL]")
	fs.BoolVar(&s.version, "version", false, "print the version and exit")
	fs.BoolVar(&s.check, "check", false, "report the platform, backend, PowerShell, hdc and code page, and every problem found")
	hdcRoots := fs.String("hdc-local-roots", getenv("WINBRIDGE_HDC_LOCAL_ROOTS"), "comma-separated `directories` whose files hdc_file_send may copy to a device without confirm; other files need confirm, since hdc_shell reads them back [WINBRIDGE_HDC_LOCAL_ROOTS]")
	fs.BoolVar(&s.hdc, "hdc", getenv("WINBRIDGE_HDC") != "0", "offer the hdc tools; -hdc=false offers only win_exec and the path tools, and -check then needs no hdc [WINBRIDGE_HDC=0 to disable]")
	if err := cli.Parse(fs, args, out); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err := envErrors(envErr, fs); err != nil && !s.version {
		return nil, err
	}
	s.cfg.Backend = *backend
	s.cfg.PowerShellExe = *psExe
	s.cfg.HDCExe = *hdcExe
	s.cfg.Policy.AllowExe = splitList(*allow)
	s.cfg.Policy.AllowEnv = splitList(*allowEnv)
	s.cfg.PassEnv = splitList(*passEnv)
	s.cfg.DefaultTimeout = *timeout
	s.cfg.MaxTimeout = *maxTimeout
	s.cfg.QueueTimeout = *queueTimeout
	if *maxTimeout <= 0 || *queueTimeout <= 0 {
		return nil, fmt.Errorf("-max-timeout and -queue-timeout must be positive")
	}
	if *maxProcs <= 0 || *maxProcs > winexec.MaxMaxProcesses {
		return nil, fmt.Errorf("-max-processes (or WINBRIDGE_MAX_PROCESSES) must be from 1 to %d", winexec.MaxMaxProcesses)
	}
	if *maxOutput <= 0 || *poolSize <= 0 || *poolSize > 64 {
		return nil, fmt.Errorf("-max-output must be positive and -pshost-pool from 1 to 64")
	}
	s.cfg.MaxOutput = *maxOutput
	s.cfg.PoolSize = *poolSize
	s.cfg.MaxProcesses = *maxProcs
	s.cfg.Launcher = strings.Fields(*launcher)
	s.cfg.JobHelper = strings.TrimSpace(*jobHelper)
	if s.cfg.JobHelper != "" {
		if err := winexec.CheckJobHelper(s.cfg.JobHelper); err != nil {
			return nil, fmt.Errorf("-job-helper (or WINBRIDGE_JOB_HELPER) %q: %w", s.cfg.JobHelper, err)
		}
	}
	s.cfg.CodePage = *codepage
	s.hdcRoots = splitList(*hdcRoots)
	s.cfg.HideEnv = serverSecretEnv
	if err := s.logLevel.UnmarshalText([]byte(*level)); err != nil {
		return nil, fmt.Errorf("-log-level (or WINBRIDGE_LOG_LEVEL): %w", err)
	}
	return s, nil
}

func splitList(v string) []string {
	var out []string
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func orList(v, def []string) []string {
	if len(v) == 0 {
		return def
	}
	return v
}

func orDuration(v, def time.Duration) time.Duration {
	if v == 0 {
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
