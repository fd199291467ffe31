package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/peertest"
)

// everythingHTTP runs examples/everything-server -http on a free port
// and returns its MCP endpoint.
func everythingHTTP(t *testing.T) string {
	t.Helper()
	bin := peertest.BuildGo(t, "./examples/everything-server")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-http", "127.0.0.1:0")
	cmd.WaitDelay = 5 * time.Second
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`url=(http://\S+/mcp)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case u := <-found:
		return u
	case <-time.After(30 * time.Second):
		t.Fatal("everything-server did not say where it serves")
	}
	return ""
}

// TestHTTPUpstream: examples/everything-server over Streamable HTTP
// behind the facade.
func TestHTTPUpstream(t *testing.T) {
	url := everythingHTTP(t)
	doc := `{"mcpServers":{"ev":{"url":` + jsonString(url) + `,"type":"http","headers":{"X-Test":"1"},"timeoutMs":20000}}}`
	cfg, hs, err := ParseConfig([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for target, check := range checkers {
		pol := &Policy{Profiles: map[string]*Profile{"default": {Target: target}}, Approval: Approval{Default: "never"},
			Tools: map[string]*ToolRule{"ev/sleep": {Budgets: Budgets{Timeout: 300 * time.Millisecond}}}}
		f := start(t, &Options{Config: cfg, HTTP: hs, Policy: pol}, nil)
		if st := f.g.Status(); len(st) != 1 || st[0].State != StateReady {
			t.Fatalf("%+v", st)
		}
		listed := f.names(t)
		if listed["ev__echo"] == nil || listed["ev__json_schema_2020_12_tool"] == nil {
			t.Fatalf("%s: %v", target, listed)
		}
		for name, tl := range listed {
			m, _ := decodeSchema(tl.InputSchema)
			if p := check(m); len(p) > 0 {
				t.Errorf("%s: %s: %v\n%s", target, name, p, tl.InputSchema)
			}
		}
		if target != TargetAnthropic {
			continue
		}
		res, code := f.call(t, "ev__test_structured_output", map[string]any{"a": 1, "b": 2})
		if b, _ := json.Marshal(res.StructuredContent); code != CodeOK || string(b) != `{"sum":3}` {
			t.Errorf("structured: %s %s", code, b)
		}
		if res, code := f.call(t, "ev__echo", map[string]any{"text": "over http"}); code != CodeOK || res.TextOf() != "over http" {
			t.Errorf("echo: %s %+v", code, res)
		}
		if _, code := f.call(t, "ev__sleep", map[string]any{"ms": "5"}); code != CodeInvalidArguments {
			t.Errorf("sleep with a string: %s", code)
		}
		start := time.Now()
		if _, code := f.call(t, "ev__sleep", map[string]any{"ms": 10000}); code != CodeTimeout {
			t.Errorf("sleep past the walltime: %s", code)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("the timeout took %v", d)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res2, err := f.c.ListResources(ctx)
		cancel()
		if err != nil || len(res2) == 0 {
			t.Errorf("resources over HTTP: %v %d", err, len(res2))
		}
	}
}

func TestParseConfigHTTP(t *testing.T) {
	cfg, hs, err := ParseConfig([]byte(`{"mcpServers":{"a":{"command":"x","args":["1"]},"b":{"url":"https://example.invalid/mcp","disabled":true}}}`))
	if err != nil || cfg.Servers["a"] == nil || hs["b"] == nil || !hs["b"].Disabled || len(cfg.Servers) != 1 {
		t.Fatalf("%v %+v %+v", err, cfg, hs)
	}
	_, _, err = ParseConfig([]byte(`{"mcpServers":{"a":{"args":[]},"b":{"url":"ftp://x"},"c":{"url":"http://h/mcp","type":"sse"},"d":{"url":"http://h/mcp","headers":{"k":1}},"e":{"url":"http://h","command":"x"}}}`))
	for _, want := range []string{
		"mcpServers.a.command: missing",
		`mcpServers.b.url: want an http or https URL, got "ftp://x"`,
		`mcpServers.c.type: want "http" or "streamable-http"`,
		`mcpServers.d.headers.k: want string, got number`,
		`mcpServers.e: has both "command" and "url"`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in %v", want, err)
		}
	}
	if _, _, err := ParseConfig([]byte(`{"mcpServers": [}`)); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("syntax: %v", err)
	}
	if _, _, err := ParseConfig([]byte(`{"other": {}}`)); err == nil || !strings.Contains(err.Error(), "mcpServers: missing") {
		t.Errorf("no mcpServers: %v", err)
	}
}
