package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// testExtension is an extension on fake engines; engines receives each
// engine it opens, and reports collects what it printed on failures.
type testExtension struct {
	*extension
	engines chan *fakeEngine
	mu      sync.Mutex
	reports []string
}

func newTestExtension(t *testing.T, env map[string]string, onExecute func(x *extension, command string)) *testExtension {
	tx := &testExtension{engines: make(chan *fakeEngine, 4)}
	tx.extension = &extension{
		open: func(cfg Config) func() (engine, error) {
			return func() (engine, error) {
				f := newFakeEngine(cfg.MaxOutput)
				if onExecute != nil {
					f.onExecute = func(c string) { onExecute(tx.extension, c) }
				}
				tx.engines <- f
				return f, nil
			}
		},
		getenv: func(k string) string { return env[k] },
		report: func(text string) {
			tx.mu.Lock()
			tx.reports = append(tx.reports, text)
			tx.mu.Unlock()
		},
	}
	t.Cleanup(func() { tx.stop() })
	return tx
}

func TestLifecycleStartStopRestart(t *testing.T) {
	x := newTestExtension(t, map[string]string{"WINDBG_MCP_HTTP": "127.0.0.1:0"}, nil)
	if err := x.start(); err != nil {
		t.Fatal(err)
	}
	f := <-x.engines
	out, ok := x.command("")
	if !ok || !strings.HasPrefix(out, "mcp: serving http://127.0.0.1:") || !strings.Contains(out, "(tool windbg_eval)") {
		t.Errorf("!mcp: %q", out)
	}
	if x.canUnload() {
		t.Error("canUnload while serving")
	}
	if err := x.start(); err != nil || len(x.engines) != 0 {
		t.Errorf("a second start: %v, %d more engines", err, len(x.engines))
	}
	x.uninitialize()
	if !x.canUnload() || !f.closed.Load() {
		t.Errorf("after uninitialize: canUnload %v, engine closed %v", x.canUnload(), f.closed.Load())
	}
	if out, _ := x.command("status"); out != "mcp: stopped\n" {
		t.Errorf("!mcp after unload: %q", out)
	}
	// A later load starts a new service.
	if out, ok := x.command("start"); !ok || !strings.Contains(out, "mcp: serving") {
		t.Errorf("!mcp start: %q", out)
	}
	<-x.engines
	if out, ok := x.command("stop"); !ok || out != "mcp: stopped\n" {
		t.Errorf("!mcp stop: %q", out)
	}
	if out, ok := x.command("bogus"); ok || !strings.Contains(out, "unknown subcommand") {
		t.Errorf("!mcp bogus: %q %v", out, ok)
	}
}

func TestLifecycleStartFailure(t *testing.T) {
	x := newTestExtension(t, map[string]string{"WINDBG_MCP_HTTP": "0.0.0.0:0"}, nil)
	if err := x.start(); err == nil {
		t.Fatal("started on 0.0.0.0")
	}
	if len(x.engines) != 0 {
		t.Error("an engine was opened for a refused address")
	}
	if len(x.reports) != 1 || !strings.Contains(x.reports[0], "refusing to serve MCP") {
		t.Errorf("reports: %q", x.reports)
	}
	if out, _ := x.command(""); !strings.Contains(out, "last start failed: ") {
		t.Errorf("!mcp: %q", out)
	}
	if !x.canUnload() {
		t.Error("canUnload after a failed start")
	}
}

// .unload run by the engine inside a command the worker is making (the
// engine calls DebugExtensionUninitialize on that thread) returns at
// once; the service stops in the background and canUnload waits for the
// worker. Waiting instead would hold the worker until the stop timeout.
func TestLifecycleReentrantUnload(t *testing.T) {
	env := map[string]string{"WINDBG_MCP_HTTP": "127.0.0.1:0", "WINDBG_MCP_GRACE": "60s"}
	x := newTestExtension(t, env, func(x *extension, command string) {
		if command == ".unload" {
			x.uninitialize()
		}
	})
	if err := x.start(); err != nil {
		t.Fatal(err)
	}
	f := <-x.engines
	x.mu.Lock()
	s := x.current
	x.mu.Unlock()
	done := make(chan error, 1)
	go func() {
		_, err := s.w.eval(context.Background(), ".unload", time.Minute, time.Minute)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("eval .unload: %v", err)
		}
	case <-time.After(20 * time.Second): // the stop timeout is 70s
		t.Fatal(".unload from the worker's thread waits for the worker")
	}
	<-s.w.done
	if !x.canUnload() || !f.closed.Load() || f.violations.Load() != 0 {
		t.Errorf("canUnload %v, engine closed %v, violations %d", x.canUnload(), f.closed.Load(), f.violations.Load())
	}
	if err := x.start(); err != nil {
		t.Errorf("start after the re-entrant unload: %v", err)
	}
}
