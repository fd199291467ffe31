package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/peertest"
	"github.com/winbridge/winbridge/mcp"
)

// TestHTTPUpstream: examples/everything-server over Streamable HTTP
// behind the facade.
func TestHTTPUpstream(t *testing.T) {
	url := peertest.EverythingHTTP(t)
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
		`mcpServers.c.type: want "http", "streamable-http" or "streamableHttp"`,
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

// TestServerNameSlash: policy keys are "server/tool", cut at the first
// "/"; a server named "a/b" could never be addressed by its rules, and
// "a/b" + "c" would read as server "a", tool "b/c". Such names are refused
// when the configuration is read and when a Gateway is made.
func TestServerNameSlash(t *testing.T) {
	_, _, err := ParseConfig([]byte(`{"mcpServers":{"a/b":{"command":"x"},"ok":{"url":"http://h/mcp"},"c/d":{"url":"http://h/mcp"}}}`))
	for _, want := range []string{`a/b`, `c/d`, `: a server name may not contain "/"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in %v", want, err)
		}
	}
	for _, opts := range []*Options{
		{Config: &client.Config{Servers: map[string]*client.ServerConfig{"a/b": {Command: "x"}}}},
		{HTTP: map[string]*HTTPServer{"a/b": {URL: "http://h/mcp"}}},
		{Servers: map[string]*mcp.Server{"a/b": mcp.NewServer(&mcp.Implementation{Name: "x"}, nil)}},
	} {
		if _, err := New(opts); err == nil || !strings.Contains(err.Error(), `server name "a/b" may not contain "/"`) {
			t.Errorf("New: %v", err)
		}
	}
}
