package winexec

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"sync"
	"time"
)

// Executor is the front door MCP tools call: it applies the Policy, the
// Config's timeouts, output cap and code page, then hands the request to
// its Backend. Create one with New; it is safe for concurrent use.
type Executor struct {
	cfg     Config
	backend Backend
	name    string
	log     *slog.Logger

	// slots holds a token per call running (Config.MaxProcesses).
	slots chan struct{}

	resMu    sync.RWMutex
	reserved map[string]string // baseKey -> tool, see Reserve
}

// New returns an Executor for cfg. Its backend is cfg.Runner when set,
// else the one cfg.Backend names (auto resolves with AutoBackend), built
// from cfg's other fields. The zero Config is usable. Close the Executor
// to stop persistent processes.
func New(cfg Config) (*Executor, error) {
	log := loggerOr(cfg.Logger)
	for _, a := range cfg.Policy.AllowExe {
		if _, err := parseProgram(a); a != "*" && err != nil {
			log.Warn("winexec: ALLOW_EXE entry allows nothing", "err", err)
		}
	}
	if cfg.JobHelper != "" {
		if err := CheckJobHelper(cfg.JobHelper); err != nil {
			return nil, &ConfigError{Setting: "WINBRIDGE_JOB_HELPER", Value: cfg.JobHelper, Err: err}
		}
	}
	if cfg.Runner != nil {
		return &Executor{cfg: cfg, backend: cfg.Runner, name: fmt.Sprintf("%T", cfg.Runner), log: log, slots: make(chan struct{}, cfg.maxProcesses())}, nil
	}
	name := cfg.Backend
	if name == "" || name == BackendAuto {
		name = AutoBackend(&cfg)
	}
	ps := PowerShell{Exe: cfg.powerShellExe(), WinCwd: cfg.WinCwd, CodePage: cfg.CodePage, HideEnv: cfg.HideEnv, PassEnv: cfg.PassEnv, Logger: log}
	var b Backend
	switch name {
	case BackendLocal:
		b = &Local{HideEnv: cfg.HideEnv, PassEnv: cfg.PassEnv, Logger: log}
	case BackendDirect:
		b = &Direct{Launcher: cfg.Launcher, WinCwd: cfg.WinCwd, JobHelper: cfg.JobHelper, CodePage: cfg.CodePage, HideEnv: cfg.HideEnv, PassEnv: cfg.PassEnv, Logger: log}
	case BackendPowerShell:
		b = &ps
	case BackendPSHost:
		b = &PSHost{PowerShell: ps, PoolSize: cfg.PoolSize, QueueTimeout: cfg.QueueTimeout}
	default:
		return nil, &ConfigError{Setting: "WINBRIDGE_BACKEND", Value: cfg.Backend, Err: fmt.Errorf("unknown backend %q", name)}
	}
	log.Debug("winexec: backend chosen", "backend", name)
	return &Executor{cfg: cfg, backend: b, name: name, log: log, slots: make(chan struct{}, cfg.maxProcesses())}, nil
}

// BackendName returns the name of the backend in use, e.g. "pshost".
func (e *Executor) BackendName() string { return e.name }

// Config returns the configuration the Executor was created with.
func (e *Executor) Config() Config { return e.cfg }

// Run checks req against the policy and runs it. A refused request returns
// a *NotAllowedError (or an error wrapping ErrInvalidExe, ErrInvalidCwd,
// ErrInvalidEnv or ErrBatchArg) and runs nothing. The backend receives
// the program the policy decided on (see Policy.CheckExe) and the working
// directory in canonical form; the caller's request is not modified.
func (e *Executor) Run(ctx context.Context, req Request) (*Result, error) {
	exe, err := e.cfg.Policy.checkExe(req.Exe, e.cfg.HDCExe)
	if err != nil {
		return nil, err
	}
	req.Exe = exe
	if req.CommandLine == "" {
		// Here as well as in the built-in backends: a Config.Runner
		// need not check.
		if err := checkBatchArgs(exe, req.Args); err != nil {
			return nil, err
		}
	}
	if err := checkBatchEnv(exe, req.Env); err != nil {
		return nil, err
	}
	if req.Cwd != "" {
		d, err := parseDir(req.Cwd)
		if err != nil {
			return nil, err
		}
		req.Cwd = d.text
	}
	if err := e.cfg.Policy.CheckEnv(req.Env); err != nil {
		return nil, err
	}
	req.Env = maps.Clone(req.Env)
	if err := applyCmdRule(&req); err != nil {
		return nil, err
	}
	req.Timeout = e.cfg.timeout(req.Timeout)
	if req.MaxOutput <= 0 {
		req.MaxOutput = e.cfg.MaxOutput
	}
	// Only a request that passed every check waits for a slot, and the
	// wait counts against its own timeout.
	req.Timeout, err = e.acquire(ctx, req.Timeout)
	if err != nil {
		e.log.Debug("winexec: run", "exe", req.Exe, "backend", e.name, "err", logErr(err))
		return nil, err
	}
	defer e.release()
	res, err := e.backend.Run(ctx, &req)
	if res != nil && e.cfg.CodePage != 0 {
		res.CodePage = e.cfg.CodePage
	}
	// Not err itself: some backend errors quote the arguments.
	e.log.Debug("winexec: run", "exe", req.Exe, "backend", e.name, "err", logErr(err))
	return res, err
}

// Timeout returns the timeout Run gives a request whose Timeout is d: d,
// or Config.DefaultTimeout when d is not positive, at most
// Config.MaxTimeout. A caller that runs several programs for one
// request of its own (the hdc tools check the connected devices first)
// uses it to fit them all in the one timeout asked for.
func (e *Executor) Timeout(d time.Duration) time.Duration { return e.cfg.timeout(d) }

// Close releases the backend's persistent processes, if any.
func (e *Executor) Close() error {
	if c, ok := e.backend.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
