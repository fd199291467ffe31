package winexec

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
)

// Defaults used by ConfigFromEnv and by a zero Config.
const (
	DefaultPowerShellExe = "powershell.exe"
	DefaultHDCExe        = "hdc.exe"
	DefaultTimeout       = 60 * time.Second
	DefaultWinCwd        = `C:\`

	// DefaultMaxTimeout caps every request's timeout (MAX_TIMEOUT_MS) so
	// that no call holds a PowerShell host, or the machine, for longer.
	DefaultMaxTimeout = 10 * time.Minute

	// DefaultPoolSize is the number of PowerShell processes the pshost
	// backend may run at once (WINBRIDGE_PSHOST_POOL); they start on
	// demand.
	DefaultPoolSize = 4

	// DefaultQueueTimeout bounds how long a pshost request waits for a
	// free PowerShell process (WINBRIDGE_QUEUE_TIMEOUT_MS) before it
	// fails with ErrBusy.
	DefaultQueueTimeout = 30 * time.Second

	// DefaultMaxProcesses is the number of programs an Executor runs at
	// once (WINBRIDGE_MAX_PROCESSES): enough for a few sessions' calls in
	// parallel, far below what one session's 64 handlers could start.
	DefaultMaxProcesses = 16

	// MaxMaxProcesses is the largest MaxProcesses the environment may set.
	MaxMaxProcesses = 1024
)

// Config holds the settings of an Executor. The zero value is usable: auto
// backend, powershell.exe, hdc.exe only, 60 s timeout, 1 MiB per stream.
type Config struct {
	// Backend is one of the Backend* names (WINBRIDGE_BACKEND). Empty
	// means auto.
	Backend string

	// PowerShellExe is the PowerShell used by the PowerShell backends
	// (WIN_PS_EXE): powershell.exe, pwsh.exe or a path.
	PowerShellExe string

	// HDCExe is the HarmonyOS device connector (HDC_EXE), for the hdc tools.
	HDCExe string

	// Policy is the executable and environment allowlist (ALLOW_EXE,
	// ALLOW_ENV).
	Policy Policy

	// DefaultTimeout applies to requests without a Timeout
	// (DEFAULT_TIMEOUT_MS). Zero means DefaultTimeout. It is capped by
	// MaxTimeout.
	DefaultTimeout time.Duration

	// MaxTimeout caps the timeout of every request (MAX_TIMEOUT_MS): a
	// larger Request.Timeout (the tool's timeoutMs) is lowered to it.
	// Zero means DefaultMaxTimeout.
	MaxTimeout time.Duration

	// Launcher is the command prefix that starts Windows executables
	// (WINBRIDGE_LAUNCHER, split on spaces): empty under WSL, "wine" in
	// tests.
	Launcher []string

	// JobHelper is the absolute path, in Windows or Linux form, of
	// jobrun.exe, a Windows build of winexec/jobrun
	// (WINBRIDGE_JOB_HELPER; build it with
	// GOOS=windows go build -o jobrun.exe ./winexec/jobrun). The direct
	// backend then runs every program inside a kill-on-close Job Object,
	// so that a timeout or a cancel kills the whole Windows tree (see
	// Direct.JobHelper). Empty means no helper: under WSL a timeout kills
	// only the direct Windows child, under wine descendants in a new
	// console or process group survive. The PowerShell backends make
	// their own Job Object and ignore it.
	JobHelper string

	// CodePage decodes output that is not UTF-8 (WIN_CODEPAGE). Zero means
	// auto: what the backend detects on the Windows side.
	CodePage int

	// MaxOutput caps each stream (WINBRIDGE_MAX_OUTPUT bytes). Zero means
	// DefaultMaxOutput.
	MaxOutput int

	// PoolSize is the maximum number of persistent PowerShell processes
	// of the pshost backend, and so of its concurrent requests
	// (WINBRIDGE_PSHOST_POOL, 1 to 64). Zero means DefaultPoolSize.
	PoolSize int

	// QueueTimeout bounds how long a pshost request waits for a free
	// PowerShell process before failing with ErrBusy
	// (WINBRIDGE_QUEUE_TIMEOUT_MS), so that long calls holding every
	// process make later calls fail fast instead of waiting behind them.
	// Zero means DefaultQueueTimeout.
	QueueTimeout time.Duration

	// MaxProcesses bounds the calls an Executor runs at once, whatever
	// the backend (WINBRIDGE_MAX_PROCESSES, 1 to 1024): local, direct and
	// powershell start a process per call, and without it only the MCP
	// handler concurrency (64 per session, times sessions) bounded them.
	// A call beyond it waits for a slot within its own timeout and
	// context, then fails with ErrTooManyProcesses, having run nothing.
	// Zero means DefaultMaxProcesses.
	MaxProcesses int

	// Runner, when not nil, is the backend New puts behind the policy
	// instead of creating the one Backend names (tests, custom
	// transports); the fields that only shape a created backend
	// (Backend, PowerShellExe, Launcher, JobHelper, PoolSize,
	// QueueTimeout, WinCwd)
	// are then unused.
	Runner Backend

	// Logger receives diagnostics; nil means slog.Default().
	Logger *slog.Logger

	// WinCwd is the Windows-side working directory of requests without one
	// (WINBRIDGE_WIN_CWD), so that programs never start in a UNC path onto
	// the Linux file system. Empty means C:\ .
	WinCwd string

	// HideEnv names variables of this process's environment that no
	// program inherits, compared ignoring ASCII case: the server's own
	// secrets (winbridge's HTTP token and Redis URL), which a program
	// printing its environment would hand to the model. Every created
	// backend applies it (local and direct pass this process's
	// environment on, the PowerShell backends start PowerShell with it).
	HideEnv []string

	// PassEnv names variables of this process's environment that
	// programs inherit although their name marks a credential
	// (WINBRIDGE_PASS_ENV, comma-separated, ignoring ASCII case): by
	// default no program inherits a variable such as GITHUB_TOKEN,
	// OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY or SSH_AUTH_SOCK (see
	// docs/WINDOWS.md), since an allowed program that prints its
	// environment would hand it to the model. "*" passes every name
	// HideEnv does not hide.
	PassEnv []string
}

// ConfigFromEnv reads the configuration from the environment (see Config
// for the variable of each field). Unset variables keep their defaults; a
// malformed value is a *ConfigError naming the variable.
func ConfigFromEnv() (Config, error) { return configFrom(os.Getenv) }

// ConfigFromEnvFunc is ConfigFromEnv reading variables through getenv, for
// programs that layer flags over the environment and for tests.
func ConfigFromEnvFunc(getenv func(string) string) (Config, error) { return configFrom(getenv) }

func configFrom(getenv func(string) string) (Config, error) {
	var c Config
	var errs []error
	bad := func(setting, v string, err error) {
		errs = append(errs, &ConfigError{Setting: setting, Value: v, Err: err})
	}
	c.Backend = strings.ToLower(strings.TrimSpace(getenv("WINBRIDGE_BACKEND")))
	switch c.Backend {
	case "", BackendAuto, BackendPowerShell, BackendPSHost, BackendDirect, BackendLocal:
	default:
		bad("WINBRIDGE_BACKEND", c.Backend, errors.New("want auto, powershell, pshost, direct or local"))
	}
	c.PowerShellExe = strings.TrimSpace(getenv("WIN_PS_EXE"))
	c.HDCExe = strings.TrimSpace(getenv("HDC_EXE"))
	if c.HDCExe != "" {
		if _, err := parseProgram(c.HDCExe); err != nil {
			bad("HDC_EXE", c.HDCExe, err)
		}
	}
	if v := getenv("ALLOW_EXE"); strings.TrimSpace(v) != "" {
		c.Policy.AllowExe = splitList(v)
		for _, a := range c.Policy.AllowExe {
			if _, err := parseProgram(a); a != "*" && err != nil {
				bad("ALLOW_EXE", a, err)
			}
		}
	}
	if v := getenv("ALLOW_ENV"); strings.TrimSpace(v) != "" {
		c.Policy.AllowEnv = splitList(v)
		for _, a := range c.Policy.AllowEnv {
			if err := checkEnvName(a); a != "*" && err != nil {
				bad("ALLOW_ENV", a, err)
			}
		}
	}
	if v := strings.TrimSpace(getenv("DEFAULT_TIMEOUT_MS")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			bad("DEFAULT_TIMEOUT_MS", v, errors.New("want a positive number of milliseconds"))
		}
		c.DefaultTimeout = time.Duration(n) * time.Millisecond
	}
	c.MaxTimeout = positiveMs(getenv, "MAX_TIMEOUT_MS", bad)
	c.QueueTimeout = positiveMs(getenv, "WINBRIDGE_QUEUE_TIMEOUT_MS", bad)
	c.Launcher = strings.Fields(getenv("WINBRIDGE_LAUNCHER"))
	c.JobHelper = strings.TrimSpace(getenv("WINBRIDGE_JOB_HELPER"))
	if c.JobHelper != "" {
		if err := CheckJobHelper(c.JobHelper); err != nil {
			bad("WINBRIDGE_JOB_HELPER", c.JobHelper, err)
		}
	}
	if v := strings.TrimSpace(getenv("WIN_CODEPAGE")); v != "" && !strings.EqualFold(v, "auto") {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
			bad("WIN_CODEPAGE", v, errors.New("want auto or a code page number such as 936"))
		case CodePageEncoding(n) == nil:
			bad("WIN_CODEPAGE", v, fmt.Errorf("code page %d is not supported", n))
		default:
			c.CodePage = n
		}
	}
	if v := strings.TrimSpace(getenv("WINBRIDGE_MAX_OUTPUT")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			bad("WINBRIDGE_MAX_OUTPUT", v, errors.New("want a positive number of bytes"))
		}
		c.MaxOutput = n
	}
	if v := strings.TrimSpace(getenv("WINBRIDGE_PSHOST_POOL")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > 64 {
			bad("WINBRIDGE_PSHOST_POOL", v, errors.New("want a number from 1 to 64"))
		}
		c.PoolSize = n
	}
	if v := strings.TrimSpace(getenv("WINBRIDGE_MAX_PROCESSES")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > MaxMaxProcesses {
			bad("WINBRIDGE_MAX_PROCESSES", v, fmt.Errorf("want a number from 1 to %d", MaxMaxProcesses))
		}
		c.MaxProcesses = n
	}
	c.WinCwd = strings.TrimSpace(getenv("WINBRIDGE_WIN_CWD"))
	if v := getenv("WINBRIDGE_PASS_ENV"); strings.TrimSpace(v) != "" {
		c.PassEnv = splitList(v)
		for _, a := range c.PassEnv {
			if err := checkEnvName(a); a != "*" && err != nil {
				bad("WINBRIDGE_PASS_ENV", a, err)
			}
		}
	}
	return c, errors.Join(errs...)
}

// CheckJobHelper reports whether p can name the job helper: an absolute
// path, in Windows (C:\tools\jobrun.exe) or Linux form, that is a valid
// program. A bare name is refused: the helper decides what contains every
// tree, so it is never looked up on a search path. CheckJobHelper does not
// look at the file; winbridge -check does.
func CheckJobHelper(p string) error {
	if !isDrivePath(p) && !strings.HasPrefix(p, "/") {
		return errors.New("want an absolute path (C:\\...\\jobrun.exe or /.../jobrun.exe)")
	}
	if _, err := parseProgram(p); err != nil {
		return err
	}
	return nil
}

// positiveMs reads a duration in milliseconds; unset is zero.
func positiveMs(getenv func(string) string, setting string, bad func(setting, v string, err error)) time.Duration {
	v := strings.TrimSpace(getenv(setting))
	if v == "" {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n > int64(24*time.Hour/time.Millisecond) {
		bad(setting, v, errors.New("want a positive number of milliseconds, at most a day"))
		return 0
	}
	return time.Duration(n) * time.Millisecond
}

func splitList(v string) []string {
	var out []string
	for f := range strings.FieldsFuncSeq(v, func(r rune) bool { return r == ',' || r == ';' }) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func (c *Config) powerShellExe() string {
	if c.PowerShellExe != "" {
		return c.PowerShellExe
	}
	return DefaultPowerShellExe
}

func (c *Config) maxTimeout() time.Duration {
	if c.MaxTimeout > 0 {
		return c.MaxTimeout
	}
	return DefaultMaxTimeout
}

// timeout is the timeout of a request asking for d: the default when d is
// not positive, never more than the maximum.
func (c *Config) timeout(d time.Duration) time.Duration {
	if d <= 0 {
		d = c.DefaultTimeout
	}
	if d <= 0 {
		d = DefaultTimeout
	}
	return min(d, c.maxTimeout())
}

func (c *Config) winCwd() string {
	if c.WinCwd != "" {
		return c.WinCwd
	}
	return DefaultWinCwd
}
