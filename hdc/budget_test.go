package hdc_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/hdc"
	"github.com/winbridge/winbridge/winexec"
)

// budgetRunner answers hdc list targets with one device, after slow (its
// own timeout when set: an hdc that answers just at its deadline), and
// records the timeout every other command was given.
type budgetRunner struct {
	slow bool

	mu       sync.Mutex
	timeouts []time.Duration
}

func (r *budgetRunner) Run(ctx context.Context, req *winexec.Request) (*winexec.Result, error) {
	if strings.Join(req.Args, " ") == "list targets" {
		if r.slow {
			select {
			case <-time.After(req.Timeout): // the program's own run time
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return &winexec.Result{Stdout: winexec.Output{Head: []byte("K1\n"), Total: 3}}, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timeouts = append(r.timeouts, req.Timeout)
	return &winexec.Result{Stdout: winexec.Output{Head: []byte("ok\n"), Total: 3}}, nil
}

func budgetTools(t *testing.T, r *budgetRunner) (*client.Client, context.Context) {
	t.Helper()
	return serveHDC(t, winexec.Config{Runner: r, HDCExe: "hdc", DefaultTimeout: time.Minute})
}

// TestDeviceCheckWithinTimeout: without connectKey a device command first
// runs hdc list targets; the two together must fit in the one timeout the
// caller asked for. Before, each got the whole timeout, so a call could
// take twice as long as asked.
func TestDeviceCheckWithinTimeout(t *testing.T) {
	t.Run("slow check", func(t *testing.T) {
		r := &budgetRunner{slow: true}
		c, ctx := budgetTools(t, r)
		for _, call := range []struct {
			tool string
			args map[string]any
		}{
			{hdc.ToolShell, map[string]any{"command": "ls", "timeoutMs": 200}},
			{hdc.ToolRun, map[string]any{"args": []string{"shell", "ls"}, "timeoutMs": 200}},
			{hdc.ToolFileSend, map[string]any{"local": "/tmp/x", "remote": "/data/x", "confirm": true, "timeoutMs": 200}},
			{hdc.ToolInstall, map[string]any{"path": "/tmp/x.hap", "confirm": true, "timeoutMs": 200}},
		} {
			res, err := c.CallTool(ctx, call.tool, call.args)
			if err != nil || !res.IsError || !strings.Contains(res.TextOf(), "timed out") {
				t.Errorf("%s: %v %q; want a timeout", call.tool, err, res.TextOf())
			}
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if len(r.timeouts) != 0 {
			t.Errorf("commands ran after the check used the whole timeout, with timeouts %v", r.timeouts)
		}
	})
	t.Run("quick check", func(t *testing.T) {
		r := &budgetRunner{}
		c, ctx := budgetTools(t, r)
		for _, args := range []map[string]any{
			{"args": []string{"shell", "ls"}, "timeoutMs": 5000},
			{"args": []string{"shell", "ls"}}, // the default timeout, a minute
		} {
			if res, err := c.CallTool(ctx, hdc.ToolRun, args); err != nil || res.IsError {
				t.Fatalf("%v: %v %q", args, err, res.TextOf())
			}
		}
		// With a key there is no check, and the command has it all.
		if res, err := c.CallTool(ctx, hdc.ToolRun, map[string]any{"args": []string{"shell", "ls"}, "connectKey": "K1", "timeoutMs": 5000}); err != nil || res.IsError {
			t.Fatalf("%v %q", err, res.TextOf())
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if len(r.timeouts) != 3 {
			t.Fatalf("timeouts %v", r.timeouts)
		}
		if d := r.timeouts[0]; d <= 0 || d >= 5*time.Second {
			t.Errorf("after the check the command got %v of 5s", d)
		}
		if d := r.timeouts[1]; d <= 0 || d >= time.Minute {
			t.Errorf("after the check the command got %v of the default minute", d)
		}
		if d := r.timeouts[2]; d != 5*time.Second {
			t.Errorf("without a check the command got %v, want 5s", d)
		}
	})
}
