package winexec

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os/exec"
	"runtime"
	"sync"
	"time"
)

// runSpec is what Local and Direct hand to runProcess after translating a
// Request for their side.
type runSpec struct {
	argv      []string
	cmdline   string // raw Windows command line (native Windows only)
	dir       string
	env       []string          // full environment; nil inherits
	reqEnv    map[string]string // the request's own variables, within env
	stdin     []byte
	timeout   time.Duration
	maxOutput int
	waitDelay time.Duration
	backend   string
	logger    *slog.Logger
}

// runProcess starts spec.argv, captures both streams within their caps and
// kills the whole process tree when the timeout expires or ctx is done.
func runProcess(ctx context.Context, spec runSpec) (*Result, error) {
	cmd := exec.Command(spec.argv[0], spec.argv[1:]...)
	if runtime.GOOS == "windows" {
		// os/exec finds a name through PATHEXT, so "deploy" may be
		// deploy.cmd: judge the file it found.
		if spec.cmdline == "" {
			if err := checkBatchArgs(cmd.Path, spec.argv[1:]); err != nil {
				return nil, err
			}
		}
		if err := checkBatchEnv(cmd.Path, spec.reqEnv); err != nil {
			return nil, err
		}
	}
	cmd.Dir = spec.dir
	cmd.Env = spec.env
	if len(spec.stdin) > 0 {
		cmd.Stdin = bytes.NewReader(spec.stdin)
	}
	stdout, stderr := newCapture(spec.maxOutput), newCapture(spec.maxOutput)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = spec.waitDelay
	if cmd.WaitDelay <= 0 {
		cmd.WaitDelay = defaultWaitDelay
	}
	prepareTree(cmd, spec.cmdline)

	tctx, cancel := timeoutContext(ctx, spec.timeout)
	defer cancel()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, &StartError{Exe: spec.argv[0], Err: err}
	}
	tree, err := startTree(cmd)
	if err != nil {
		spec.logger.Warn("winexec: cannot group process tree; a timeout kills only the process", "exe", spec.argv[0], "err", err)
	}
	defer tree.close()

	var (
		killOnce sync.Once
		killed   = make(chan struct{})
		done     = make(chan struct{})
	)
	go func() {
		select {
		case <-tctx.Done():
			killOnce.Do(func() {
				// Marked before the kill: the process may exit from it and
				// Wait return before the kill call does.
				close(killed)
				if err := tree.kill(); err != nil {
					spec.logger.Warn("winexec: tree kill failed", "exe", spec.argv[0], "err", err)
				}
			})
		case <-done:
		}
	}()
	werr := cmd.Wait()
	close(done)
	res := &Result{
		ExitCode: cmd.ProcessState.ExitCode(),
		Stdout:   stdout.output(),
		Stderr:   stderr.output(),
		Duration: time.Since(start),
		Backend:  spec.backend,
	}
	select {
	case <-killed:
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		res.TimedOut = true
	default:
	}
	var ee *exec.ExitError
	switch {
	case werr == nil, errors.As(werr, &ee):
	case errors.Is(werr, exec.ErrWaitDelay):
		spec.logger.Debug("winexec: output pipes still open after exit; a descendant holds them", "exe", spec.argv[0])
	default:
		return res, werr
	}
	return res, nil
}
