package gateway

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/peertest"
)

// pinned reads a package's version from the lock file the setup script
// installs from.
func pinned(t *testing.T, pkg string) string {
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

// npxConfig runs the reference everything and filesystem servers through
// npx, pinned, from the peers' directory (whose node_modules npx finds).
func npxConfig(t *testing.T, root string) *client.Config {
	t.Helper()
	peertest.LookPath(t, "npx")
	nodeDir := peertest.NodeDir(t)
	env := map[string]string{"npm_config_update_notifier": "false", "npm_config_cache": filepath.Join(os.TempDir(), "winbridge-npx-cache")}
	return &client.Config{Servers: map[string]*client.ServerConfig{
		"everything": {Name: "everything", Command: "npx", Cwd: nodeDir, Env: env, Lifecycle: client.KeepAlive,
			Args: []string{"-y", "@modelcontextprotocol/server-everything@" + pinned(t, "@modelcontextprotocol/server-everything"), "stdio"}},
		"fs": {Name: "fs", Command: "npx", Cwd: nodeDir, Env: env, Lifecycle: client.KeepAlive,
			Args: []string{"-y", "@modelcontextprotocol/server-filesystem@" + pinned(t, "@modelcontextprotocol/server-filesystem"), root}},
	}}
}

// TestReferenceServersThroughFacade: server-everything and
// server-filesystem behind the facade: every cleaned schema passes each
// provider's checker, and the pipeline refuses what it must.
func TestReferenceServersThroughFacade(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello 中文\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := npxConfig(t, root)
	for target, check := range checkers {
		t.Run(string(target), func(t *testing.T) {
			pol := &Policy{Profiles: map[string]*Profile{"default": {Target: target}}}
			copts, changed := changedClient()
			f := start(t, &Options{Config: cfg, Servers: inproc(), Policy: pol}, copts)
			for _, st := range f.g.Status() {
				if st.State != StateReady {
					t.Fatalf("%s: %s %v", st.Name, st.State, st.Err)
				}
			}
			listed := f.waitListed(t, changed, "everything__echo", "everything__get-sum", "fs__read_text_file", "fs__list_directory")
			for name, tl := range listed {
				m, err := decodeSchema(tl.InputSchema)
				if err != nil {
					t.Fatal(err)
				}
				if p := check(m); len(p) > 0 {
					t.Errorf("%s: %v\n%s", name, p, tl.InputSchema)
				}
			}
			for _, pe := range f.g.Plan() {
				if pe.Status != "listed" {
					t.Logf("%s/%s: %s", pe.Server, pe.Tool, pe.Status)
				}
			}
		})
	}

	pol := mustPolicy(t, `{"roots":[`+jsonString(root)+`],
		"tools":{"fs/read_text_file":{"pathArgs":["path"]},"fs/read_multiple_files":{"pathArgs":["paths[]"]},"fs/write_file":{"pathArgs":["path"]}},
		"approval":{"rules":[{"tool":"everything/*","require":"never"},{"tool":"fs/read*","require":"never"}]},
		"limits":{"maxBlockBytes":4096}}`)
	copts, changed := changedClient()
	f := start(t, &Options{Config: cfg, Policy: pol}, copts)
	f.waitListed(t, changed, "everything__echo", "everything__get-sum", "fs__read_text_file", "fs__read_multiple_files", "fs__write_file")
	cases := []struct {
		name string
		args any
		want Code
		text string
	}{
		{"everything__echo", map[string]any{"message": "hi 中文"}, CodeOK, "hi 中文"},
		{"everything__get-sum", json.RawMessage(`{"a":"5","b":2}`), CodeInvalidArguments, "not converted"},
		{"everything__get-sum", map[string]any{"a": 5, "b": 2}, CodeOK, "7"},
		{"fs__read_text_file", map[string]any{"path": filepath.Join(root, "hello.txt")}, CodeOK, "hello 中文"},
		{"fs__read_text_file", map[string]any{"path": "/etc/hostname"}, CodePathOutsideRoots, ""},
		{"fs__read_text_file", map[string]any{"path": root + "/../x"}, CodePathOutsideRoots, ""},
		{"fs__read_multiple_files", map[string]any{"paths": []string{filepath.Join(root, "hello.txt"), "/etc/passwd"}}, CodePathOutsideRoots, ""},
		{"fs__write_file", map[string]any{"path": filepath.Join(root, "new.txt"), "content": "x"}, CodeApprovalUnavailable, ""},
		{"everything__nope", nil, CodeUnknownTool, ""},
	}
	for _, c := range cases {
		res, code := f.call(t, c.name, c.args)
		if code != c.want || !strings.Contains(res.TextOf(), c.text) {
			t.Errorf("%s %v: %s %q, want %s", c.name, c.args, code, cut(res.TextOf()), c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); err == nil {
		t.Error("the refused write happened")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if res, err := f.c.ListResources(ctx); err != nil || len(res) == 0 {
		t.Errorf("resources of server-everything: %v %d", err, len(res))
	}
	if prompts, err := f.c.ListPrompts(ctx); err != nil || len(prompts) == 0 {
		t.Errorf("prompts of server-everything: %v %d", err, len(prompts))
	}
	if f.audit.count() != len(cases) {
		t.Errorf("%d audit records for %d calls", f.audit.count(), len(cases))
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func cut(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}
