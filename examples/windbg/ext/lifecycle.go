package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// extension is the state the DLL's exports share across .load, !mcp and
// .unload: at most one service, started and stopped under mu.
type extension struct {
	// open returns the engine opener for a service with cfg; the opener
	// runs on the new worker thread.
	open func(cfg Config) func() (engine, error)
	// getenv reads the settings at each start.
	getenv func(string) string
	// report prints a start failure: no worker exists to print it then.
	report func(text string)

	mu       sync.Mutex
	current  *service
	lastErr  error
	draining *service // stopped, but its worker had not ended yet
}

// errReentrant refuses to stop the service from its own worker thread.
var errReentrant = errors.New("called from a command the extension itself is running; it cannot wait for itself")

// start starts the service unless it runs; a failure is reported and
// returned.
func (x *extension) start() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.current != nil {
		return nil
	}
	var err error
	if x.draining != nil && !x.draining.w.ended() {
		err = errors.New("the previous service is still stopping (its worker is busy with a command)")
	} else {
		x.draining = nil
		var cfg Config
		if cfg, err = configFromEnv(x.getenv); err == nil {
			x.current, err = startService(cfg, x.open(cfg))
		}
	}
	x.lastErr = err
	if err != nil {
		x.report("mcp: " + err.Error() + "\n")
	}
	return err
}

// stop stops the service and waits for it, within its stop timeout. On
// the worker's own thread it refuses with errReentrant.
func (x *extension) stop() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	s := x.current
	if s == nil {
		return nil
	}
	if s.w.onWorkerThread() {
		return errReentrant
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.stopTimeout())
	defer cancel()
	err := s.stop(ctx)
	if err != nil {
		x.draining = s
	}
	x.current = nil
	return err
}

// uninitialize is DebugExtensionUninitialize: stop, and on the worker's
// own thread (a .unload run through the tool, possible only with
// WINDBG_MCP_ALLOW_SESSION_END=1) stop in the background instead of
// waiting for itself.
func (x *extension) uninitialize() {
	if err := x.stop(); !errors.Is(err, errReentrant) {
		return
	}
	x.mu.Lock()
	s := x.current
	x.current, x.draining = nil, s
	x.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), s.stopTimeout())
		defer cancel()
		_ = s.stop(ctx)
	}()
}

// canUnload is DebugExtensionCanUnload: true once no service runs and
// the last one's worker has released the engine.
func (x *extension) canUnload() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.current == nil && (x.draining == nil || x.draining.w.ended())
}

const usage = `!mcp          the state of the MCP service (its URL and tool)
!mcp start    start the service (after !mcp stop); settings are read again from the environment
!mcp stop     stop the service; .unload does the same
!mcp help     this text
`

// command runs an !mcp subcommand and returns its text and whether it
// succeeded.
func (x *extension) command(args string) (string, bool) {
	switch strings.TrimSpace(args) {
	case "", "status":
		x.mu.Lock()
		defer x.mu.Unlock()
		if x.current == nil {
			if x.lastErr != nil {
				return fmt.Sprintf("mcp: stopped (last start failed: %v)\n", x.lastErr), true
			}
			return "mcp: stopped\n", true
		}
		return fmt.Sprintf("mcp: serving %s (tool %s)\n", x.current.url, x.current.cfg.toolName()), true
	case "start":
		if err := x.start(); err != nil {
			return fmt.Sprintf("mcp: start failed: %v\n", err), false
		}
		return x.command("status")
	case "stop":
		if err := x.stop(); err != nil {
			return fmt.Sprintf("mcp: stop: %v\n", err), false
		}
		return "mcp: stopped\n", true
	case "help":
		return usage, true
	default:
		return "mcp: unknown subcommand\n" + usage, false
	}
}
