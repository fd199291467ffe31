package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/peertest"
)

// TestInspectorCLI has the MCP Inspector (pinned, in CLI mode) launch the
// winbridge binary over stdio, list its tools and call two of them.
func TestInspectorCLI(t *testing.T) {
	inspector := peertest.InspectorCLI(t)
	bin := build(t)
	run := func(args ...string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		argv := append(append(append([]string{}, inspector...), "-e", "WINBRIDGE_BACKEND=local", "-e", "ALLOW_EXE=printf", bin), args...)
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "MCP_CATALOG_PATH="+filepath.Join(t.TempDir(), "catalog.json"))
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("inspector %v: %v\n%s\n%s", args, err, out, stderr)
		}
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("inspector output %s: %v", out, err)
		}
		return v
	}
	list := run("--method", "tools/list")
	names := map[string]bool{}
	for _, tl := range list["tools"].([]any) {
		names[tl.(map[string]any)["name"].(string)] = true
	}
	for _, want := range []string{"win_exec", "path_wsl_to_win", "path_win_to_wsl"} {
		if !names[want] {
			t.Errorf("inspector sees no %s among %v", want, names)
		}
	}
	call := run("--method", "tools/call", "--tool-name", "win_exec", "--tool-arg", "exe=printf", "--tool-arg", `args=["%s|%s","a b","c\"d"]`)
	sc, _ := call["structuredContent"].(map[string]any)
	if sc["stdout"] != `a b|c"d` || sc["exitCode"] != float64(0) {
		t.Errorf("win_exec through the inspector: %v", call)
	}
	path := run("--method", "tools/call", "--tool-name", "path_wsl_to_win", "--tool-arg", "path=/mnt/c/x")
	if sc, _ := path["structuredContent"].(map[string]any); sc["path"] != `C:\x` {
		t.Errorf("path_wsl_to_win through the inspector: %v", path)
	}
}
