package winexec

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"time"
)

// PowerShell runs each request in a new powershell.exe executing Bootstrap.
// It pays PowerShell's start-up (about half a second) on every call; PSHost
// keeps processes warm instead. Tree kill happens on the Windows side
// (taskkill /T /F /PID, then Process.Kill), and exit codes are the full 32
// bits. The zero value runs powershell.exe found on PATH.
type PowerShell struct {
	// Exe is the PowerShell to run: powershell.exe, pwsh.exe or a path.
	// Empty means powershell.exe.
	Exe string

	// Dir is the Linux-side working directory of the PowerShell process
	// itself. Empty means /mnt/c under WSL when it exists, so PowerShell
	// does not start in a slow UNC path, and the current directory
	// otherwise.
	Dir string

	// WinCwd is the working directory of requests without one, in Windows
	// or Linux form. Empty means C:\ .
	WinCwd string

	// Paths translates Linux paths in Exe and Cwd to Windows form; nil
	// means the default PathMapper.
	Paths *PathMapper

	// CodePage overrides the code page the bootstrap detects. Zero means
	// use the detected one.
	CodePage int

	// Grace is how long to wait for the bootstrap beyond the request's
	// timeout, or after a cancel, before killing PowerShell itself. Zero
	// means 5 s.
	Grace time.Duration

	// HideEnv names variables of this process's environment that
	// PowerShell, and so every program, does not inherit (see
	// Config.HideEnv).
	HideEnv []string
	// PassEnv names inherited variables the program sees although their
	// name marks a credential (see Config.PassEnv).
	PassEnv []string

	// Logger receives diagnostics; nil means slog.Default().
	Logger *slog.Logger
}

// env is the environment PowerShell starts with: this process's without
// hidden and credential variables, so that none crosses to Windows
// through a WSLENV the user set.
func (p *PowerShell) env() []string {
	return inheritedEnv(p.HideEnv, p.PassEnv)
}

func (p *PowerShell) exe() string {
	if p.Exe != "" {
		return p.Exe
	}
	return DefaultPowerShellExe
}

func (p *PowerShell) grace() time.Duration {
	if p.Grace > 0 {
		return p.Grace
	}
	return 5 * time.Second
}

func (p *PowerShell) dir() string {
	if p.Dir != "" {
		return p.Dir
	}
	if IsWSL() {
		if fi, err := os.Stat("/mnt/c"); err == nil && fi.IsDir() {
			return "/mnt/c"
		}
	}
	return ""
}

// wire translates a request for the bootstrap: Windows paths, one command
// line, env as K=V.
func (p *PowerShell) wire(req *Request, id int64) (*wireRequest, error) {
	if err := checkNUL(req); err != nil {
		return nil, err
	}
	exe, cwd, err := checkTarget(req)
	if err != nil {
		return nil, err
	}
	if exe[0] == '/' {
		w, err := p.Paths.WSLToWin(exe)
		if err != nil {
			return nil, &StartError{Exe: exe, Err: err}
		}
		exe = w
	}
	// .NET puts FileName between double quotes, after trimming white
	// space, and CreateProcess splits that line again: the name must not
	// be able to end the quotes early (a distribution name is the one
	// part checkTarget did not see).
	if strings.ContainsAny(exe, "\"\x00\r\n\t") || strings.TrimSpace(exe) != exe {
		return nil, fmt.Errorf("%w %q: not representable as a quoted program name", ErrInvalidExe, exe)
	}
	if cwd == "" {
		cwd = p.WinCwd
	}
	if cwd == "" {
		cwd = DefaultWinCwd
	}
	cwd, err = p.Paths.WSLToWin(cwd)
	if err != nil {
		return nil, &StartError{Exe: exe, Err: fmt.Errorf("cwd: %w", err)}
	}
	if len(cwd) > 2 && cwd[:2] == `\\` {
		loggerOr(p.Logger).Debug("winexec: working directory is a UNC path; cmd.exe will fall back to C:\\Windows", "cwd", cwd)
	}
	cmdline := req.CommandLine
	if cmdline == "" {
		cmdline = JoinArgs(req.Args)
	}
	env := make([]string, 0, len(req.Env))
	for k, v := range req.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	w := &wireRequest{ID: id, Exe: []byte(exe), CmdLine: []byte(cmdline), Cwd: []byte(cwd), Stdin: req.Stdin}
	for _, kv := range env {
		w.Env = append(w.Env, []byte(kv))
	}
	if w.Stdin == nil {
		w.Stdin = []byte{}
	}
	if req.Timeout > 0 {
		w.TimeoutMs = max(1, req.Timeout.Milliseconds())
	}
	return w, nil
}

func (p *PowerShell) finish(res *Result, backend string) {
	if res == nil {
		return
	}
	res.Backend = backend
	if p.CodePage != 0 {
		res.CodePage = p.CodePage
	}
}

// Run implements Backend.
func (p *PowerShell) Run(ctx context.Context, req *Request) (*Result, error) {
	w, err := p.wire(req, 1)
	if err != nil {
		return nil, err
	}
	s, err := startSession(p.exe(), p.dir(), p.env(), loggerOr(p.Logger))
	if err != nil {
		return nil, err
	}
	res, err := s.do(ctx, w, req.maxOutput(), p.grace())
	if err != nil {
		s.kill(p.grace())
	} else {
		s.close(p.grace())
	}
	p.finish(res, BackendPowerShell)
	return res, err
}
