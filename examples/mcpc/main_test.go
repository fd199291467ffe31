package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/internal/peertest"
	"github.com/winbridge/winbridge/mcp"
)

// mcpc runs the command in-process and returns its status and output.
func mcpc(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestToolsAndCallAgainstEcho(t *testing.T) {
	echo := peertest.BuildGo(t, "./examples/echo")
	code, out, errs := mcpc(t, "tools", "--", echo)
	var list struct{ Tools []mcp.Tool }
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list.Tools) != 1 || list.Tools[0].Name != "echo" {
		t.Fatalf("tools: %d %s %s", code, out, errs)
	}
	code, out, errs = mcpc(t, "--timeout", "30s", "--protocol", mcp.LatestLegacyVersion, "call", "echo", `{"text":"hi 中文"}`, "--", echo)
	var res mcp.CallToolResult
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || !strings.Contains(res.TextOf(), "hi 中文") {
		t.Fatalf("call: %d %s %s", code, out, errs)
	}
}

func TestExitStatuses(t *testing.T) {
	fixture := peertest.BuildGo(t, "./examples/everything-server")
	if code, out, _ := mcpc(t, "call", "test_error_handling", "--", fixture); code != 1 || !strings.Contains(out, `"isError": true`) {
		t.Errorf("a tool error: status %d, output %s", code, out)
	}
	for _, args := range [][]string{
		{"call", "no_such_tool", "{}", "--", fixture},           // a JSON-RPC error or a tool error
		{"call", "test_simple_text", "not json", "--", fixture}, // bad arguments
		{"tools"}, // no server
		{"frobnicate", "--", fixture},
		{"tools", "--", filepath.Join(t.TempDir(), "missing")},
	} {
		code, out, errs := mcpc(t, args...)
		if len(args) > 1 && args[1] == "no_such_tool" && code == 1 {
			continue // reported as a tool result with isError
		}
		if code != 2 || out != "" || !strings.HasPrefix(errs, "mcpc: ") {
			t.Errorf("mcpc %q: status %d, stdout %q, stderr %q; want 2 and an error on stderr", args, code, out, errs)
		}
	}
}

func TestConfigServerAndVerbose(t *testing.T) {
	echo := peertest.BuildGo(t, "./examples/echo")
	cfg := filepath.Join(t.TempDir(), "config.json")
	doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"echo": map[string]any{"command": echo}}})
	if err := os.WriteFile(cfg, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := mcpc(t, "--config", cfg, "--server", "echo", "-v", "call", "echo", `{"text":"via config"}`)
	if code != 0 || !strings.Contains(out, "via config") {
		t.Fatalf("status %d: %s %s", code, out, errs)
	}
	if code, _, errs := mcpc(t, "--config", cfg, "--server", "nope", "tools"); code != 2 || !strings.Contains(errs, `no server "nope"`) {
		t.Errorf("unknown server: %d %s", code, errs)
	}
}

func TestResourcesAndPromptsAgainstReferenceServer(t *testing.T) {
	argv := peertest.EverythingServer(t)
	code, out, errs := mcpc(t, "resources", "--", argv[0], argv[1], argv[2])
	var res struct {
		Resources []struct{ URI string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Resources) == 0 {
		t.Fatalf("resources: %d %.300s %s", code, out, errs)
	}
	code, out, errs = mcpc(t, "read", res.Resources[0].URI, "--", argv[0], argv[1], argv[2])
	if code != 0 || !strings.Contains(out, `"contents"`) {
		t.Errorf("read: %d %.300s %s", code, out, errs)
	}
	code, out, errs = mcpc(t, "prompts", "--", argv[0], argv[1], argv[2])
	var prompts struct {
		Prompts []struct {
			Name      string
			Arguments []struct {
				Name     string
				Required bool
			}
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &prompts) != nil || len(prompts.Prompts) == 0 {
		t.Fatalf("prompts: %d %.300s %s", code, out, errs)
	}
	for _, p := range prompts.Prompts {
		if len(p.Arguments) > 0 {
			continue
		}
		code, out, errs = mcpc(t, "get", p.Name, "--", argv[0], argv[1], argv[2])
		if code != 0 || !strings.Contains(out, `"messages"`) {
			t.Errorf("get %s: %d %.300s %s", p.Name, code, out, errs)
		}
		return
	}
	t.Errorf("no prompt without arguments among %+v", prompts.Prompts)
}

// A bad --url is not repeated in the error: a mistyped one may still carry
// a password or a token.
func TestBadURLNotRepeated(t *testing.T) {
	for _, u := range []string{"htps://me:hunter2@h/mcp", "https://me:hunter2@exa mple.com/mcp", "https:/hunter2"} {
		code, _, stderr := mcpc(t, "--url", u, "tools")
		if code != 2 || !strings.Contains(stderr, "--url: want an http or https URL") {
			t.Errorf("%s: status %d, stderr %q", u, code, stderr)
		}
		if strings.Contains(stderr, "hunter2") {
			t.Errorf("%s: the error shows the credential: %q", u, stderr)
		}
	}
}

// mcpc's own messages show a remote server's scheme and host only: its
// key may be in the path or the query.
func TestRemoteEndpointKeyNotShown(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers":{"r":{"url":"https://mcp.example.invalid/mcp/hunter2?api_key=hunter2"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := mcpc(t, "--config", cfg, "--server", "r", "-e", "A=1", "tools")
	if code != 2 || !strings.Contains(stderr, "https://mcp.example.invalid") {
		t.Errorf("status %d, stderr %q", code, stderr)
	}
	if strings.Contains(stderr, "hunter2") {
		t.Errorf("the error shows the key: %q", stderr)
	}
}
