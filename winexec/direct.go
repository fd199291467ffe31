package winexec

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Direct runs a Windows executable as a Linux child: through WSL interop
// (Launcher empty) or through a launcher such as wine. The .exe's argv is
// quoted into a Windows command line by WSL (or wine) with the MSVCRT rules,
// so Request.CommandLine cannot be honoured (ErrRawCommandLine).
//
// Tree kill: the Linux process group is killed. Under wine every Windows
// process is a Linux process in that group, so the whole tree dies. Under
// WSL the Linux side holds only a relay; WSL terminates the direct Windows
// child when the relay dies, but never its descendants, and WSL interop
// does not reveal the Windows PID that taskkill /T would need. Use the
// PowerShell backends under WSL when a program may start children.
//
// Exit codes through WSL interop are truncated to 8 bits (a Linux wait
// status); under wine too.
type Direct struct {
	// Launcher is the command prefix, e.g. []string{"wine"}; empty under
	// WSL, where the kernel's binfmt handler runs .exe files.
	Launcher []string

	// WinCwd is the working directory of requests without one, in Windows
	// or Linux form. Empty means C:\ under WSL (so the program does not
	// start in a UNC path onto the Linux file system) and the current
	// directory with a launcher.
	WinCwd string

	// Paths translates Windows paths in Exe and Cwd; nil means the default
	// PathMapper.
	Paths *PathMapper

	// CodePage decodes non-UTF-8 output. Zero means detect once by running
	// chcp.com on the Windows side.
	CodePage int

	// WaitDelay bounds the wait for output pipes after the program exited.
	// Zero means 2 s.
	WaitDelay time.Duration

	// Logger receives diagnostics; nil means slog.Default().
	Logger *slog.Logger

	cpOnce     sync.Once
	detectedCP int
}

// Run implements Backend.
func (d *Direct) Run(ctx context.Context, req *Request) (*Result, error) {
	if req.CommandLine != "" {
		return nil, ErrRawCommandLine
	}
	if err := checkNUL(req); err != nil {
		return nil, err
	}
	exe, cwd, err := checkTarget(req)
	if err != nil {
		return nil, err
	}
	if len(d.Launcher) == 0 && IsWindowsPath(exe) {
		// Interop needs a Linux path to the .exe (or a name on PATH).
		p, err := d.Paths.WinToWSL(exe)
		if err != nil {
			return nil, &StartError{Exe: exe, Err: err}
		}
		exe = p
	}
	argv := append(append(append([]string(nil), d.Launcher...), exe), req.Args...)

	dir, err := d.dir(cwd)
	if err != nil {
		return nil, &StartError{Exe: exe, Err: err}
	}
	if len(d.Launcher) > 0 {
		if err := checkLauncherName(exe, dir); err != nil {
			return nil, err
		}
	}
	res, err := runProcess(ctx, runSpec{
		argv:      argv,
		dir:       dir,
		env:       directEnv(req.Env),
		stdin:     req.Stdin,
		timeout:   req.Timeout,
		maxOutput: req.maxOutput(),
		waitDelay: d.WaitDelay,
		backend:   BackendDirect,
		logger:    loggerOr(d.Logger),
	})
	if res != nil {
		res.CodePage = d.codePage(ctx)
	}
	return res, err
}

// dir returns the Linux-side working directory: the request's, else WinCwd,
// each translated from Windows form.
func (d *Direct) dir(cwd string) (string, error) {
	if cwd == "" {
		cwd = d.WinCwd
		if cwd == "" && len(d.Launcher) == 0 && IsWSL() {
			cwd = DefaultWinCwd
		}
	}
	if cwd == "" {
		return "", nil
	}
	return d.Paths.WinToWSL(cwd)
}

// directEnv adds the request's variables to our environment and names
// exactly them in WSLENV, which is how WSL interop decides what a Windows
// process sees; an inherited WSLENV is replaced so nothing else leaks. Wine
// has no such filter: a wine program sees the whole Linux environment.
func directEnv(extra map[string]string) []string {
	env := make([]string, 0, len(os.Environ())+len(extra)+1)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "WSLENV=") {
			env = append(env, kv)
		}
	}
	names := make([]string, 0, len(extra))
	for k, v := range extra {
		env = append(env, k+"="+v)
		names = append(names, k)
	}
	sort.Strings(names)
	return append(env, "WSLENV="+strings.Join(names, ":"))
}

var codePageRE = regexp.MustCompile(`(\d{3,5})\D*$`)

// codePage returns the configured code page or detects the console code
// page once with chcp.com, whose message is localised but always ends in
// the number.
func (d *Direct) codePage(ctx context.Context) int {
	if d.CodePage != 0 {
		return d.CodePage
	}
	d.cpOnce.Do(func() {
		argv := append(append([]string(nil), d.Launcher...), "chcp.com")
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		out, err := cmd.Output()
		if err != nil {
			loggerOr(d.Logger).Debug("winexec: chcp.com failed; decoding non-UTF-8 output as Windows-1252", "err", err)
			return
		}
		if m := codePageRE.FindSubmatch(bytes.TrimSpace(out)); m != nil {
			d.detectedCP, _ = strconv.Atoi(string(m[1]))
		}
	})
	return d.detectedCP
}
