package client_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/peertest"
)

var (
	npxCacheOnce sync.Once
	npxCacheDir  string
)

// npxCache is one npm cache for every npx test of this run, so that only
// the first one downloads. It lives beside the other test builds and is
// not removed, so later runs start warm.
func npxCache(t *testing.T) string {
	npxCacheOnce.Do(func() { npxCacheDir = filepath.Join(os.TempDir(), "winbridge-npx-cache") })
	return npxCacheDir
}

// pinnedVersion reads a package's version from the lock file the rest of
// the suite installs from.
func pinnedVersion(t *testing.T, pkg string) string {
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
		t.Fatalf("%s is not pinned in package-lock.json", pkg)
	}
	return v
}

// TestManagerRunsNpmServersWithNpx launches the reference everything and
// filesystem servers through npx, from a JSON config, as MCP hosts do, and
// calls their tools through the Manager.
func TestManagerRunsNpmServersWithNpx(t *testing.T) {
	peertest.LookPath(t, "npx")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello from winbridge 中文\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"npm_config_cache": npxCache(t), "npm_config_update_notifier": "false"}
	doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{
			"command": "npx",
			"args":    []string{"-y", "@modelcontextprotocol/server-everything@" + pinnedVersion(t, "@modelcontextprotocol/server-everything"), "stdio"},
			"env":     env,
		},
		"fs": map[string]any{
			"command": "npx",
			"args":    []string{"-y", "@modelcontextprotocol/server-filesystem@" + pinnedVersion(t, "@modelcontextprotocol/server-filesystem"), dir},
			"env":     env,
			"cwd":     dir,
		},
	}})
	cfg, err := client.ParseConfig(doc)
	if err != nil {
		t.Fatal(err)
	}
	m := client.NewManager(cfg, &client.ManagerOptions{Process: client.ProcessOptions{
		OnStderr: func(line string) { t.Logf("stderr: %s", line) },
	}})
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute) // a cold cache downloads
	defer cancel()
	if err := m.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	t.Logf("tools: %v", names)
	for _, want := range []string{"everything__echo", "fs__list_directory", "fs__read_text_file"} {
		if !slices.Contains(names, want) {
			t.Fatalf("no %s among %v", want, names)
		}
	}

	res, err := m.CallTool(ctx, "everything__echo", map[string]string{"message": "hello from winbridge 中文"})
	if err != nil || res.IsError || !strings.Contains(res.TextOf(), "hello from winbridge 中文") {
		t.Fatalf("echo: %v %+v", err, res)
	}
	res, err = m.CallTool(ctx, "fs__list_directory", map[string]string{"path": dir})
	if err != nil || res.IsError || !strings.Contains(res.TextOf(), "hello.txt") {
		t.Fatalf("list_directory: %v %+v", err, res)
	}
	res, err = m.CallTool(ctx, "fs__read_text_file", map[string]string{"path": filepath.Join(dir, "hello.txt")})
	if err != nil || res.IsError || !strings.Contains(res.TextOf(), "hello from winbridge 中文") {
		t.Fatalf("read_text_file: %v %+v", err, res)
	}
	// Outside the allowed directory the server refuses: a tool error, not
	// a failed call.
	res, err = m.CallTool(ctx, "fs__read_text_file", map[string]string{"path": "/etc/hostname"})
	if err != nil || !res.IsError {
		t.Errorf("read outside the root: %v %+v", err, res)
	}

	var pids []int
	for _, s := range m.Status() {
		if s.State != client.StateReady {
			t.Errorf("%s: %+v", s.Name, s)
		}
		pids = append(pids, s.Pid)
	}
	start := time.Now()
	m.Close()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Close took %v", d)
	}
	checkTreesGone(t, pids)
}
