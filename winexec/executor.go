package winexec

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
)

// Executor is the front door MCP tools call: it applies the Policy, the
// Config's default timeout, output cap and code page, then hands the
// request to its Backend. Create one with New; it is safe for concurrent
// use.
type Executor struct {
	cfg     Config
	backend Backend
	name    string
	log     *slog.Logger
}

// New returns an Executor for cfg, creating the backend cfg.Backend names
// (auto resolves with AutoBackend). Close it to stop persistent processes.
func New(cfg Config) (*Executor, error) {
	return NewWithLogger(cfg, nil)
}

// NewWithLogger is New with a logger for diagnostics; nil means
// slog.Default().
func NewWithLogger(cfg Config, log *slog.Logger) (*Executor, error) {
	log = loggerOr(log)
	name := cfg.Backend
	if name == "" || name == BackendAuto {
		name = AutoBackend(&cfg)
	}
	ps := PowerShell{Exe: cfg.powerShellExe(), WinCwd: cfg.WinCwd, CodePage: cfg.CodePage, Logger: log}
	var b Backend
	switch name {
	case BackendLocal:
		b = &Local{Logger: log}
	case BackendDirect:
		b = &Direct{Launcher: cfg.Launcher, WinCwd: cfg.WinCwd, CodePage: cfg.CodePage, Logger: log}
	case BackendPowerShell:
		b = &ps
	case BackendPSHost:
		b = &PSHost{PowerShell: ps, PoolSize: cfg.PoolSize}
	default:
		return nil, &ConfigError{Setting: "WINBRIDGE_BACKEND", Value: cfg.Backend, Err: fmt.Errorf("unknown backend %q", name)}
	}
	log.Debug("winexec: backend chosen", "backend", name)
	return &Executor{cfg: cfg, backend: b, name: name, log: log}, nil
}

// NewWithBackend returns an Executor that applies cfg's policy and defaults
// in front of an existing backend (tests, custom transports).
func NewWithBackend(cfg Config, b Backend, log *slog.Logger) *Executor {
	return &Executor{cfg: cfg, backend: b, name: fmt.Sprintf("%T", b), log: loggerOr(log)}
}

// BackendName returns the name of the backend in use, e.g. "pshost".
func (e *Executor) BackendName() string { return e.name }

// Config returns the configuration the Executor was created with.
func (e *Executor) Config() Config { return e.cfg }

// Run checks req against the policy and runs it. A refused request returns
// a *NotAllowedError and runs nothing. The request is not modified.
func (e *Executor) Run(ctx context.Context, req Request) (*Result, error) {
	if err := e.cfg.Policy.CheckExe(req.Exe); err != nil {
		return nil, err
	}
	if err := e.cfg.Policy.CheckEnv(req.Env); err != nil {
		return nil, err
	}
	req.Env = maps.Clone(req.Env)
	if err := applyCmdRule(&req); err != nil {
		return nil, err
	}
	if req.Timeout <= 0 {
		req.Timeout = e.cfg.defaultTimeout()
	}
	if req.MaxOutput <= 0 {
		req.MaxOutput = e.cfg.MaxOutput
	}
	res, err := e.backend.Run(ctx, &req)
	if res != nil && e.cfg.CodePage != 0 {
		res.CodePage = e.cfg.CodePage
	}
	e.log.Debug("winexec: run", "exe", req.Exe, "backend", e.name, "err", err)
	return res, err
}

// Close releases the backend's persistent processes, if any.
func (e *Executor) Close() error {
	if c, ok := e.backend.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
