package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/peertest"
)

// httpUpstreamFixture writes a configuration with examples/everything-server
// over Streamable HTTP as server "ev", and a policy that needs no approval
// and gives ev/sleep a short walltime.
func httpUpstreamFixture(t *testing.T) (cfg, pol string) {
	t.Helper()
	url := peertest.EverythingHTTP(t)
	dir := t.TempDir()
	cfg = writeJSON(t, dir, "cfg.json", map[string]any{"mcpServers": map[string]any{
		"ev": map[string]any{"url": url, "type": "http", "timeoutMs": 20000},
	}})
	pol = writeJSON(t, dir, "pol.json", map[string]any{
		"approval": map[string]any{"default": "never"},
		"tools":    map[string]any{"ev/sleep": map[string]any{"budgets": map[string]any{"timeoutMs": 300}}},
	})
	return cfg, pol
}

// TestGatewayHTTPUpstreamTSClient drives `winbridge gateway` with the
// TypeScript SDK's client over an HTTP upstream: calls, refusals, the
// walltime, and a sampling request of the upstream answered by the TS
// client through the facade.
func TestGatewayHTTPUpstreamTSClient(t *testing.T) {
	bin := build(t)
	cfg, pol := httpUpstreamFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	calls := []struct {
		name, args, code, text string
	}{
		{"ev__echo", `{"text":"over http 中文"}`, "", "over http 中文"},
		{"ev__test_structured_output", `{"a":1,"b":2}`, "", "3"},
		{"ev__sleep", `{"ms":"5"}`, "invalid_arguments", "not converted"},
		{"ev__sleep", `{"ms":10000}`, "timeout", "cancelled"},
		{"ev__test_sampling", `{"prompt":"hi"}`, "", "LLM response: sampled by the TS client"},
		{"no_such_tool", `{}`, "unknown_tool", ""},
	}
	args := []string{"--sample", "sampled by the TS client"}
	for _, c := range calls {
		args = append(args, "--call", c.name+"="+c.args)
	}
	args = append(args, "--", bin, "gateway", "-config", cfg, "-policy", pol)
	out, err := peertest.RunNode(t, ctx, "ts-client.mjs", args...)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tools []string
		Calls []struct {
			Name   string
			Result *struct {
				IsError bool
				Meta    map[string]map[string]any `json:"_meta"`
				Content []map[string]any
			}
			Error any
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"ev__echo", "ev__sleep", "ev__test_sampling"} {
		if !contains(got.Tools, want) {
			t.Errorf("tools lack %s: %v", want, got.Tools)
		}
	}
	if len(got.Calls) != len(calls) {
		t.Fatalf("%d calls", len(got.Calls))
	}
	for i, c := range calls {
		r := got.Calls[i]
		if r.Result == nil {
			t.Errorf("%s: error %v", c.name, r.Error)
			continue
		}
		code, _ := r.Result.Meta["io.winbridge/gateway"]["code"].(string)
		if !r.Result.IsError {
			code = ""
		}
		b, _ := json.Marshal(r.Result.Content)
		if code != c.code || !strings.Contains(string(b), c.text) {
			t.Errorf("%s %s: code %q, content %s; want %q containing %q", c.name, c.args, code, b, c.code, c.text)
		}
	}
}

// TestGatewayHTTPUpstreamMcpc drives `winbridge gateway` with mcpc over an
// HTTP upstream.
func TestGatewayHTTPUpstreamMcpc(t *testing.T) {
	bin := build(t)
	mcpc := filepath.Join(t.TempDir(), "mcpc")
	if out, err := exec.Command("go", "build", "-o", mcpc, "../mcpc").CombinedOutput(); err != nil {
		t.Fatalf("go build mcpc: %v\n%s", err, out)
	}
	cfg, pol := httpUpstreamFixture(t)
	gw := []string{"--", bin, "gateway", "-config", cfg, "-policy", pol}
	runMcpc := func(args ...string) (int, string) {
		cmd := exec.Command(mcpc, append(args, gw...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if stderr.Len() > 0 {
			t.Logf("mcpc stderr: %s", stderr.String())
		}
		return code, stdout.String()
	}
	code, out := runMcpc("tools")
	if code != 0 || !strings.Contains(out, `"ev__echo"`) || !strings.Contains(out, `"ev__test_structured_output"`) {
		t.Fatalf("tools: exit %d\n%s", code, out)
	}
	code, out = runMcpc("call", "ev__echo", `{"text":"over http 中文"}`)
	if code != 0 || !strings.Contains(out, "over http 中文") {
		t.Fatalf("echo: exit %d\n%s", code, out)
	}
	code, out = runMcpc("call", "ev__sleep", `{"ms":"5"}`)
	if code != 1 || !strings.Contains(out, `"code": "invalid_arguments"`) {
		t.Fatalf("sleep with a string: exit %d\n%s", code, out)
	}
	code, out = runMcpc("call", "ev__sleep", `{"ms":10000}`)
	if code != 1 || !strings.Contains(out, `"code": "timeout"`) {
		t.Fatalf("sleep past the walltime: exit %d\n%s", code, out)
	}
}
