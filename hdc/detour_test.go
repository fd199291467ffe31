package hdc_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/winbridge/winbridge/hdc"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/winexec"
)

// countingRunner records the programs it was asked to run.
type countingRunner struct {
	mu   sync.Mutex
	runs [][]string
}

func (r *countingRunner) Run(_ context.Context, req *winexec.Request) (*winexec.Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runs = append(r.runs, append([]string{req.Exe}, req.Args...))
	return &winexec.Result{}, nil
}

func (r *countingRunner) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.runs)
}

// TestWinExecDetour: with the hdc tools and win.exec on one executor (as
// the winbridge server has them) and the default allowlist (hdc.exe), a
// model must not reach hdc's destructive commands through win.exec, which
// knows nothing of confirm.
func TestWinExecDetour(t *testing.T) {
	for _, hdcExe := range []string{"", `C:\sdk\toolchains\hdc.exe`} {
		r := &countingRunner{}
		c, ctx := serveBridge(t, winexec.Config{Runner: r, HDCExe: hdcExe, Launcher: []string{"wine"}})
		for _, exe := range []string{"hdc.exe", "hdc", "HDC.EXE", hdcExe, "/mnt/c/sdk/toolchains/HDC.exe"} {
			if exe == "" {
				continue
			}
			for _, args := range [][]string{{"kill"}, {"target", "boot"}, {"-m", "-s", "0.0.0.0:8710"}, {"hilog", "parse", "-i", "x"}} {
				res, err := c.CallTool(ctx, winexec.ToolExec, map[string]any{"exe": exe, "args": args})
				if err != nil || !res.IsError || !strings.Contains(res.TextOf(), hdc.ToolRun) {
					t.Errorf("HDC_EXE %q: %s %q %q = %v %+v, want a tool error pointing to %s", hdcExe, winexec.ToolExec, exe, args, err, res, hdc.ToolRun)
				}
			}
		}
		if n := r.count(); n != 0 {
			t.Errorf("HDC_EXE %q: win.exec ran hdc %d times: %q", hdcExe, n, r.runs)
		}
		// The guarded way still works, with confirm.
		res, err := c.CallTool(ctx, hdc.ToolRun, map[string]any{"args": []string{"kill"}})
		if err == nil && !res.IsError {
			t.Errorf("hdc.run kill without confirm succeeded")
		}
		if _, err := c.CallTool(ctx, hdc.ToolRun, map[string]any{"args": []string{"kill"}, "confirm": true}); err != nil {
			t.Errorf("hdc.run kill with confirm: %v", err)
		}
		if n := r.count(); n != 1 {
			t.Errorf("HDC_EXE %q: %d runs after hdc.run with confirm, want 1", hdcExe, n)
		}
	}
}

// TestAddToolsInvalidExePanics: hdc.AddTools with an hdc program name the
// executor cannot reserve must not register tools that look guarded
// while win_exec still runs hdc: before, Reserve ignored the name, the
// hdc tools failed on it, and win_exec ran "hdc.exe" without confirm.
func TestAddToolsInvalidExePanics(t *testing.T) {
	ex, err := winexec.New(winexec.Config{Runner: &countingRunner{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	srv := mcp.NewServer(&mcp.Implementation{Name: "badexe", Version: "1.0.0"}, nil)
	defer func() {
		if recover() == nil {
			t.Error("AddTools with Exe \"hdc.exe \" did not panic")
		}
	}()
	hdc.AddTools(srv, ex, &hdc.Options{Exe: "hdc.exe "})
}
