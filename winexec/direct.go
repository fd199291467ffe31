package winexec

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
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
// so a Request.CommandLine is honoured only when it is exactly what those
// rules make of some argv (see canonicalArgs); any other is refused with
// ErrRawCommandLine.
//
// Tree kill: the Linux process group is killed. Under wine a Windows
// process is a Linux process in that group, unless it was started in a new
// console or a new process group (wine gives it a session of its own). Under WSL the Linux side holds only a relay; WSL terminates the
// direct Windows child when the relay dies, but never its descendants, and
// WSL interop does not reveal the Windows PID that taskkill /T would need.
// JobHelper closes both gaps: the direct Windows child is then the helper,
// whose death kills the Job Object holding the tree.
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

	// JobHelper is the path (Windows or Linux form) of jobrun.exe, the
	// helper built from winexec/jobrun for Windows. When set, every program
	// runs inside a kill-on-close Windows Job Object that it cannot break
	// away from: killing the helper (a timeout, a cancel) kills the whole
	// Windows tree, including grandchildren started detached, in a new
	// console or in a new process group (cmd /c start), which the Linux
	// process-group kill misses under wine and which WSL interop never
	// reaches. The helper also passes Request.CommandLine verbatim. Empty
	// means no helper: trees are killed as described above, and only
	// canonical command lines pass.
	JobHelper string

	// Paths translates Windows paths in Exe and Cwd; nil means the default
	// PathMapper.
	Paths *PathMapper

	// CodePage decodes non-UTF-8 output. Zero means detect once by running
	// chcp.com on the Windows side, beside the first program; a call does
	// not wait for it past its own timeout or cancellation.
	CodePage int

	// WaitDelay bounds the wait for output pipes after the program exited.
	// Zero means 2 s.
	WaitDelay time.Duration

	// HideEnv names variables of this process's environment the program
	// does not inherit (see Config.HideEnv).
	HideEnv []string
	// PassEnv names inherited variables the program sees although their
	// name marks a credential (see Config.PassEnv).
	PassEnv []string

	// Logger receives diagnostics; nil means slog.Default().
	Logger *slog.Logger

	cpOnce     sync.Once
	cpDone     chan struct{} // closed once detectedCP is set
	detectedCP int
}

// Run implements Backend.
func (d *Direct) Run(ctx context.Context, req *Request) (*Result, error) {
	if err := checkNUL(req); err != nil {
		return nil, err
	}
	exe, cwd, err := checkTarget(req)
	if err != nil {
		return nil, err
	}
	// What runs is what was checked: the canonical program.
	checked := *req
	checked.Exe = exe
	argv, searched, err := d.argv(&checked)
	if err != nil {
		return nil, err
	}
	exe = argv[len(d.Launcher)]

	dir, err := d.dir(cwd)
	if err != nil {
		return nil, &StartError{Exe: exe, Err: err}
	}
	if searched != "" {
		if err := checkLauncherName(searched, dir); err != nil {
			return nil, err
		}
	}
	// The call's own deadline, which also bounds the wait for the
	// code-page probe: that runs beside the program, once per Direct.
	tctx, cancel := timeoutContext(ctx, req.Timeout)
	defer cancel()
	d.startCodePage(ctx)
	res, err := runProcess(ctx, runSpec{
		argv:      argv,
		dir:       dir,
		env:       directEnv(req.Env, d.HideEnv, d.PassEnv),
		stdin:     req.Stdin,
		timeout:   req.Timeout,
		maxOutput: req.maxOutput(),
		waitDelay: d.WaitDelay,
		backend:   BackendDirect,
		logger:    loggerOr(d.Logger),
	})
	if res != nil {
		res.CodePage = d.codePage(tctx)
	}
	return res, err
}

// argv returns the Linux argv for req: the launcher, then the program and
// its arguments, or the job helper and the hex-encoded command line. It
// also returns the program name a Windows search will look for in the
// working directory, or "" when none will: the name given to a launcher,
// or the name in the helper's command line, which the helper's
// CreateProcess searches in its current directory (the request's) before
// PATH, under a launcher and under WSL interop alike.
func (d *Direct) argv(req *Request) (argv []string, searched string, err error) {
	argv = append([]string(nil), d.Launcher...)
	if d.JobHelper != "" {
		helper, err := d.linuxExe(d.JobHelper)
		if err != nil {
			return nil, "", &StartError{Exe: d.JobHelper, Err: err}
		}
		prog, err := d.windowsExe(d.interopName(req.Exe))
		if err != nil {
			return nil, "", &StartError{Exe: req.Exe, Err: err}
		}
		line := BuildCommandLine(prog, req.Args)
		if req.CommandLine != "" {
			line = quoteProgram(strings.ReplaceAll(prog, `"`, "")) + " " + req.CommandLine
		}
		if !strings.ContainsAny(prog, `\/`) {
			searched = prog
		}
		return append(argv, helper, hex.EncodeToString([]byte(line))), searched, nil
	}
	args := req.Args
	if req.CommandLine != "" {
		if args, err = canonicalArgs(req.CommandLine); err != nil {
			return nil, "", err
		}
	}
	exe, err := d.linuxExe(req.Exe)
	if err != nil {
		return nil, "", &StartError{Exe: req.Exe, Err: err}
	}
	if len(d.Launcher) > 0 && !strings.ContainsAny(exe, `\/`) {
		searched = exe
	}
	return append(append(argv, exe), args...), searched, nil
}

// linuxExe is the program as the Linux side starts it: interop needs a
// Linux path to the .exe (or a name on PATH); a launcher takes any form.
func (d *Direct) linuxExe(exe string) (string, error) {
	if len(d.Launcher) == 0 && IsWindowsPath(exe) {
		return d.Paths.WinToWSL(exe)
	}
	return d.interopName(exe), nil
}

// interopName gives a program name that does not end in .exe or .com
// the ".exe" it needs to be a Windows program, under WSL interop (no
// launcher). The policy allows "find" for the entry find.exe, and the
// Linux PATH, which interop searches, holds Linux programs before the
// Windows directories: "find" ran /usr/bin/find, whose -exec runs
// anything (as do timeout, sort --compress-program, tar --to-command),
// and "python3.11" (for python3.11.exe) a Linux Python.
func (d *Direct) interopName(exe string) string {
	if len(d.Launcher) > 0 || !IsWSL() || strings.ContainsAny(exe, `\/`) {
		return exe
	}
	if ext := asciiLower(exe[max(0, len(exe)-4):]); ext == ".exe" || ext == ".com" {
		return exe
	}
	return exe + ".exe"
}

// windowsExe is the program as CreateProcess sees it in the job helper's
// command line: a Windows path as given; a name as given with a launcher,
// and under WSL the Windows form of where the Linux PATH finds it (as
// interop would), if it does; a Linux path translated by Paths under WSL,
// or into wine's drive Z: (the Linux root) with a launcher.
func (d *Direct) windowsExe(exe string) (string, error) {
	if IsWindowsPath(exe) {
		return exe, nil
	}
	if !strings.Contains(exe, "/") {
		if len(d.Launcher) > 0 {
			return exe, nil
		}
		p, err := exec.LookPath(exe)
		if err != nil {
			return exe, nil // CreateProcess searches the Windows PATH
		}
		exe = p
	}
	if len(d.Launcher) == 0 {
		return d.Paths.WSLToWin(exe)
	}
	abs, err := filepath.Abs(exe)
	if err != nil {
		return "", err
	}
	return `Z:` + strings.ReplaceAll(abs, "/", `\`), nil
}

// canonicalArgs returns the argv whose MSVCRT quoting is exactly line, so
// that WSL interop or wine, quoting it again, hand the program line
// verbatim; a line that no argv quotes to is ErrRawCommandLine.
func canonicalArgs(line string) ([]string, error) {
	args := SplitCommandLine("p " + line)[1:]
	if JoinArgs(args) != line {
		return nil, fmt.Errorf("%w: %s (WSL interop and wine quote argv with the MSVCRT rules, and no argv quotes to this line)", ErrRawCommandLine, line)
	}
	return args, nil
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
// A WSLENV the request sets (ALLOW_ENV listing it by name) is dropped, in
// any case of its name: it would choose which of the server's variables
// cross (WSLENV=HOME/p:PATH/l), and which one of two entries reaches
// interop should not depend on how the environment is deduplicated.
func directEnv(extra map[string]string, hide, pass []string) []string {
	inherited := inheritedEnv(hide, pass)
	env := make([]string, 0, len(inherited)+len(extra)+1)
	for _, kv := range inherited {
		if !strings.HasPrefix(kv, "WSLENV=") {
			env = append(env, kv)
		}
	}
	names := make([]string, 0, len(extra))
	for k, v := range extra {
		if asciiLower(k) == "wslenv" {
			continue
		}
		env = append(env, k+"="+v)
		names = append(names, k)
	}
	sort.Strings(names)
	return append(env, "WSLENV="+strings.Join(names, ":"))
}

var codePageRE = regexp.MustCompile(`(\d{3,5})\D*$`)

// startCodePage starts detecting the console code page, once, when none
// is configured: chcp.com's message is localised but always ends in the
// number. The probe has 20 s of its own and outlives the call that
// started it, so a later call gets its result.
func (d *Direct) startCodePage(ctx context.Context) {
	if d.CodePage != 0 {
		return
	}
	d.cpOnce.Do(func() {
		d.cpDone = make(chan struct{})
		go func() {
			defer close(d.cpDone)
			argv := append(append([]string(nil), d.Launcher...), "chcp.com")
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).Output()
			if err != nil {
				loggerOr(d.Logger).Debug("winexec: chcp.com failed; decoding non-UTF-8 output as Windows-1252", "err", err)
				return
			}
			if m := codePageRE.FindSubmatch(bytes.TrimSpace(out)); m != nil {
				d.detectedCP, _ = strconv.Atoi(string(m[1]))
			}
		}()
	})
}

// codePage returns the configured code page or the detected one. It waits
// for the probe only while ctx, the call's deadline, allows: before, the
// first call waited for chcp.com up to 20 s past its timeout or cancel.
// Cut short, it returns 0 (decoded as Windows-1252).
func (d *Direct) codePage(ctx context.Context) int {
	if d.CodePage != 0 {
		return d.CodePage
	}
	d.startCodePage(ctx)
	select {
	case <-d.cpDone:
		return d.detectedCP
	default:
	}
	select {
	case <-d.cpDone:
		return d.detectedCP
	case <-ctx.Done():
		return 0
	}
}
