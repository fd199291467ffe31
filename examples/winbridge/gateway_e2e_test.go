package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/peertest"
	"github.com/winbridge/winbridge/internal/toolname"
)

// pinnedPeer reads a package's version from the lock file the setup script
// installs from.
func pinnedPeer(t *testing.T, pkg string) string {
	t.Helper()
	var lock struct {
		Packages map[string]struct{ Version string } `json:"packages"`
	}
	b, err := os.ReadFile(filepath.Join(peertest.RepoRoot(t), "internal/peers/node/package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	v := lock.Packages["node_modules/"+pkg].Version
	if v == "" {
		t.Fatalf("%s is not pinned", pkg)
	}
	return v
}

// gatewayFixture writes the configuration (server-everything and
// server-filesystem through npx, pinned) and a policy binding the
// filesystem tools to root.
func gatewayFixture(t *testing.T) (cfg, pol, root string) {
	t.Helper()
	peertest.LookPath(t, "npx")
	nodeDir := peertest.NodeDir(t)
	dir := t.TempDir()
	root = filepath.Join(dir, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello 中文\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"npm_config_update_notifier": "false", "npm_config_cache": filepath.Join(os.TempDir(), "winbridge-npx-cache")}
	cfg = writeJSON(t, dir, "cfg.json", map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": "npx", "cwd": nodeDir, "env": env,
			"args": []string{"-y", "@modelcontextprotocol/server-everything@" + pinnedPeer(t, "@modelcontextprotocol/server-everything"), "stdio"}},
		"fs": map[string]any{"command": "npx", "cwd": nodeDir, "env": env,
			"args": []string{"-y", "@modelcontextprotocol/server-filesystem@" + pinnedPeer(t, "@modelcontextprotocol/server-filesystem"), root}},
	}})
	pol = writeJSON(t, dir, "pol.json", map[string]any{
		"roots": []string{root},
		"tools": map[string]any{
			"fs/read_text_file": map[string]any{"pathArgs": []string{"path"}},
			"fs/write_file":     map[string]any{"pathArgs": []string{"path"}},
		},
		"approval": map[string]any{"rules": []any{
			map[string]any{"tool": "everything/*", "require": "never"},
			map[string]any{"tool": "fs/read*", "require": "never"},
		}},
	})
	return cfg, pol, root
}

// bridgeName asks `winbridge gateway -plan -bridge` for the exposed name of
// the bridge tool whose source matches pattern (the bridge's own tool
// names are being renamed from dotted to snake case; the test follows).
func bridgeName(t *testing.T, bin, pattern string) string {
	t.Helper()
	cmd := exec.Command(bin, "gateway", "-plan", "-bridge")
	cmd.Env = append(os.Environ(), "WINBRIDGE_BACKEND=local", "ALLOW_EXE=printf")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("-plan: %v\n%s", err, out)
	}
	re := regexp.MustCompile(`(?m)^(\S+) +bridge/` + pattern + ` `)
	m := re.FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("no bridge tool %s in the plan:\n%s", pattern, out)
	}
	if !toolname.Valid(m[1], toolname.DefaultMax) {
		t.Fatalf("exposed name %q", m[1])
	}
	return m[1]
}

// TestGatewayWithTSClient drives `winbridge gateway` with the TypeScript
// SDK's client: npx upstreams and the bridge's tools in process.
func TestGatewayWithTSClient(t *testing.T) {
	bin := build(t)
	cfg, pol, root := gatewayFixture(t)
	t.Setenv("WINBRIDGE_BACKEND", "local")
	t.Setenv("ALLOW_EXE", "printf")
	wsl2win := bridgeName(t, bin, `path[._]wsl_to_win`)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	calls := []struct {
		name, args, code, text string
	}{
		{"everything__echo", `{"message":"hi 中文"}`, "", "hi 中文"},
		{"everything__get-sum", `{"a":"5","b":2}`, "invalid_arguments", "not converted"},
		{"everything__get-sum", `{"a":5,"b":2}`, "", "7"},
		{"fs__read_text_file", `{"path":` + jsonQuote(filepath.Join(root, "hello.txt")) + `}`, "", "hello 中文"},
		{"fs__read_text_file", `{"path":"/etc/passwd"}`, "path_outside_roots", ""},
		{"fs__read_text_file", `{"path":` + jsonQuote(root+"/../root/../x") + `}`, "path_outside_roots", ""},
		{"fs__write_file", `{"path":` + jsonQuote(filepath.Join(root, "w.txt")) + `,"content":"x"}`, "approval_unavailable", "elicitation"},
		{wsl2win, `{"path":"/mnt/c/Users"}`, "", `C:`},
		{"no_such_tool", `{}`, "unknown_tool", ""},
	}
	args := []string{}
	for _, c := range calls {
		args = append(args, "--call", c.name+"="+c.args)
	}
	args = append(args, "--", bin, "gateway", "-bridge", "-config", cfg, "-policy", pol)
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
	for _, want := range []string{"everything__echo", "fs__read_text_file", wsl2win} {
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
	if _, err := os.Stat(filepath.Join(root, "w.txt")); err == nil {
		t.Error("the refused write happened")
	}
}

// TestGatewayWithMcpc drives `winbridge gateway` with mcpc.
func TestGatewayWithMcpc(t *testing.T) {
	bin := build(t)
	mcpc := filepath.Join(t.TempDir(), "mcpc")
	if out, err := exec.Command("go", "build", "-o", mcpc, "../mcpc").CombinedOutput(); err != nil {
		t.Fatalf("go build mcpc: %v\n%s", err, out)
	}
	cfg, pol, root := gatewayFixture(t)
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
	if code != 0 || !strings.Contains(out, `"fs__read_text_file"`) || !strings.Contains(out, `"everything__echo"`) {
		t.Fatalf("tools: exit %d\n%s", code, out)
	}
	code, out = runMcpc("call", "fs__read_text_file", `{"path":`+jsonQuote(filepath.Join(root, "hello.txt"))+`}`)
	if code != 0 || !strings.Contains(out, "hello 中文") {
		t.Fatalf("read: exit %d\n%s", code, out)
	}
	code, out = runMcpc("call", "fs__read_text_file", `{"path":"/etc/passwd"}`)
	if code != 1 || !strings.Contains(out, `"code": "path_outside_roots"`) {
		t.Fatalf("read outside: exit %d\n%s", code, out)
	}
	code, out = runMcpc("call", "everything__get-sum", `{"a":"5","b":2}`)
	if code != 1 || !strings.Contains(out, `"code": "invalid_arguments"`) {
		t.Fatalf("get-sum: exit %d\n%s", code, out)
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
