package winexec

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"time"
)

// Local runs programs natively with os/exec: Linux and macOS programs, or
// Windows programs when this process itself runs on Windows. A timeout kills
// the process group (Unix: Setpgid and kill(-pgid, SIGKILL)) or the Job
// Object (Windows). The zero value is ready to use.
type Local struct {
	// WaitDelay bounds the wait for output pipes after the program exited,
	// when a descendant keeps them open. Zero means 2 s.
	WaitDelay time.Duration

	// HideEnv names variables of this process's environment the program
	// does not inherit (see Config.HideEnv).
	HideEnv []string
	// PassEnv names inherited variables the program sees although their
	// name marks a credential (see Config.PassEnv).
	PassEnv []string

	// Logger receives diagnostics; nil means slog.Default().
	Logger *slog.Logger
}

// Run implements Backend.
func (l *Local) Run(ctx context.Context, req *Request) (*Result, error) {
	if req.CommandLine != "" && runtime.GOOS != "windows" {
		return nil, ErrRawCommandLine
	}
	exe, cwd, err := checkTarget(req)
	if err != nil {
		return nil, err
	}
	argv := append([]string{exe}, req.Args...)
	env := inheritedEnv(l.HideEnv, l.PassEnv)
	for k, v := range req.Env {
		env = append(env, k+"="+v)
	}
	var cmdline string
	if req.CommandLine != "" {
		cmdline = quoteProgram(exe) + " " + req.CommandLine
	}
	if err := checkNUL(req); err != nil {
		return nil, err
	}
	return runProcess(ctx, runSpec{
		argv:      argv,
		cmdline:   cmdline,
		dir:       cwd,
		env:       env,
		reqEnv:    req.Env,
		stdin:     req.Stdin,
		timeout:   req.Timeout,
		maxOutput: req.maxOutput(),
		waitDelay: l.WaitDelay,
		backend:   BackendLocal,
		logger:    loggerOr(l.Logger),
	})
}

func loggerOr(l *slog.Logger) *slog.Logger {
	if l != nil {
		return l
	}
	return slog.Default()
}

// checkNUL refuses what no command line or environment block can carry.
func checkNUL(req *Request) error {
	bad := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] == 0 {
				return true
			}
		}
		return false
	}
	if bad(req.Exe) || bad(req.CommandLine) || bad(req.Cwd) {
		return ErrNUL
	}
	for _, a := range req.Args {
		if bad(a) {
			return ErrNUL
		}
	}
	for k, v := range req.Env {
		if bad(k) || bad(v) {
			return ErrNUL
		}
		if k == "" || strings.Contains(k, "=") {
			return fmt.Errorf("winexec: invalid environment variable name %q", k)
		}
	}
	return nil
}
