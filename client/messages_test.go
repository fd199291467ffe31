//go:build linux

package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
)

// repeatedPrefix returns the first "x: x:" in an error message: a layer
// that named what the layer below had named already.
func repeatedPrefix(msg string) string {
	first, _, _ := strings.Cut(msg, "\n")
	parts := strings.Split(first, ": ")
	for i := 1; i < len(parts); i++ {
		if parts[i] == parts[i-1] {
			return parts[i] + ": " + parts[i]
		}
	}
	return ""
}

func TestRepeatedPrefixDetector(t *testing.T) {
	if repeatedPrefix("server/discover: server/discover: call timed out") == "" {
		t.Error("missed a repeated prefix")
	}
	if r := repeatedPrefix("client: starting helper: server/discover: call timed out"); r != "" {
		t.Errorf("false alarm: %q", r)
	}
}

// TestErrorsReadOnce: each layer names its part once, and a deadline
// names the setting that expired.
func TestErrorsReadOnce(t *testing.T) {
	noLeaks(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	check := func(what string, err error, want ...string) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error", what)
		}
		if r := repeatedPrefix(err.Error()); r != "" {
			t.Errorf("%s: %q repeats %q", what, err, r)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not name %q", what, err, w)
			}
		}
	}

	// A server that never answers: the start-up timeout, by its name.
	_, err := client.Launch(ctx, helperCommand(t, "silent"), &client.ProcessOptions{StartTimeout: 200 * time.Millisecond, Logger: quietLog})
	check("start-up", err, "ProcessOptions.StartTimeout", "server start-up timed out")
	if !errors.Is(err, client.ErrStartTimeout) {
		t.Errorf("start-up: %v is not ErrStartTimeout", err)
	}

	p := launch(t, helperCommand(t, "server"), &client.ProcessOptions{Client: &client.Options{Timeout: 300 * time.Millisecond}})
	_, err = p.CallTool(ctx, "hang", nil, client.WithTimeout(200*time.Millisecond))
	check("per-call timeout", err, "client.WithTimeout", "tools/call")
	c, err := p.Client(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CallTool(context.Background(), "hang", nil)
	check("client timeout", err, "client.Options.Timeout", "300ms")
	if !errors.Is(err, client.ErrTimeout) {
		t.Errorf("%v is not ErrTimeout", err)
	}

	// Through a Manager, the config's timeoutMs.
	cfg := parseConfig(t, map[string]any{"slow": helperServerJSON(t, map[string]any{"timeoutMs": 250})})
	m := client.NewManager(cfg, &client.ManagerOptions{Process: client.ProcessOptions{Logger: quietLog}})
	defer m.Close()
	_, err = m.CallTool(context.Background(), "slow__hang", nil)
	check("timeoutMs", err, "mcpServers.slow.timeoutMs")
}
