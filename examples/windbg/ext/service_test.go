package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/httpserve"
)

func testConfig() Config {
	return Config{
		HTTP:        httpserve.Config{Addr: "127.0.0.1:0"},
		Timeout:     time.Minute,
		Grace:       10 * time.Second,
		MaxOutput:   1 << 16,
		EchoMaxText: 200,
	}
}

// startFake serves /mcp on a fake engine and stops it at cleanup.
func startFake(t *testing.T, cfg Config) (*service, *fakeEngine) {
	t.Helper()
	open, engines := opener(t, cfg.MaxOutput)
	s, err := startService(cfg, open)
	if err != nil {
		t.Fatal(err)
	}
	f := <-engines
	t.Cleanup(func() { _ = s.stop(context.Background()) })
	return s, f
}

// waitWindow polls the fake's window until it holds every want (the
// echo is printed after the response, on the worker).
func waitWindow(t *testing.T, f *fakeEngine, want ...string) string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		text := f.windowText()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(text, w)
		}
		if ok {
			return text
		}
		select {
		case <-f.printed:
		case <-deadline:
			t.Fatalf("the window lacks %q:\n%s", want, text)
		}
	}
}

func TestServiceScenarios(t *testing.T) {
	s, f := startFake(t, testConfig())
	checkMCP(t, s.url, "windbg_eval", f.commands)
	// An invalid request is echoed too, and answered as without the echo.
	req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "-32700") {
		t.Errorf("invalid JSON: %d %s", resp.StatusCode, body)
	}
	text := waitWindow(t, f, `status=400`, `outcome="error -32700"`, "mcp: serving http://127.0.0.1:", `http="POST /mcp"`, "rpc=initialize", "rpc=tools/list",
		"rpc=no/such/method", `outcome="error -32601"`, "rpc=tools/call", `outcome="error -32602"`, "[masked]")
	if strings.Contains(text, secret) {
		t.Errorf("the echo shows the secret:\n%s", text)
	}
	if f.violations.Load() != 0 {
		t.Errorf("%d wrong-thread engine calls", f.violations.Load())
	}
}

// Long bodies are cut in the echo, the response is whole.
func TestServiceEchoTruncates(t *testing.T) {
	s, f := startFake(t, testConfig())
	c, _ := connect(t, s.url)
	long := "echo " + strings.Repeat("A", 4000) // within dbgcmd.MaxLine
	res := c.eval("windbg_eval", map[string]any{"command": long})
	if got := res.Content[0].Text; got != "ran "+long+"\n" {
		t.Errorf("the response was changed: %d bytes", len(got))
	}
	text := waitWindow(t, f, "truncated")
	if strings.Contains(text, strings.Repeat("A", 1000)) {
		t.Error("the echo printed the long body whole")
	}
}

func TestServiceDottedNames(t *testing.T) {
	cfg := testConfig()
	cfg.DottedNames = true
	s, f := startFake(t, cfg)
	checkMCP(t, s.url, "windbg.eval", f.commands)
}

func TestServiceTimeoutAndCap(t *testing.T) {
	cfg := testConfig()
	cfg.Timeout = 100 * time.Millisecond
	cfg.MaxOutput = 100
	s, _ := startFake(t, cfg)
	c, _ := connect(t, s.url)
	res := c.eval("windbg_eval", map[string]any{"command": "hang"})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "hang: interrupted") || !strings.Contains(res.Content[0].Text, "it was interrupted") {
		t.Errorf("hang: %+v", res)
	}
	res = c.eval("windbg_eval", map[string]any{"command": "big"})
	if !strings.Contains(res.Content[0].Text, "100 more bytes of output were dropped") {
		t.Errorf("big: %+v", res)
	}
}

// A command that ignores the interrupt is reported as still running.
func TestServiceStuckCommand(t *testing.T) {
	cfg := testConfig()
	cfg.Timeout, cfg.Grace = 10*time.Millisecond, 10*time.Millisecond
	s, f := startFake(t, cfg)
	defer close(f.unstick)
	c, _ := connect(t, s.url)
	res := c.eval("windbg_eval", map[string]any{"command": "stuck"})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "the debugger is still busy with it") {
		t.Errorf("stuck: %+v", res)
	}
}

// stop closes the listener and the engine, on the worker's thread.
func TestServiceStopReleases(t *testing.T) {
	open, engines := opener(t, 1<<10)
	s, err := startService(testConfig(), open)
	if err != nil {
		t.Fatal(err)
	}
	f := <-engines
	addr := strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), "/mcp")
	if err := s.stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !f.closed.Load() || f.violations.Load() != 0 {
		t.Errorf("closed %v, violations %d", f.closed.Load(), f.violations.Load())
	}
	if conn, err := net.Dial("tcp", addr); err == nil {
		conn.Close()
		t.Errorf("%s still accepts connections", addr)
	}
}

// A non-loopback address is refused before the engine is opened, unless
// allowed with a token; then the token is required.
func TestServiceRemoteNeedsToken(t *testing.T) {
	cfg := testConfig()
	cfg.HTTP.Addr = "0.0.0.0:0"
	opened := false
	_, err := startService(cfg, func() (engine, error) { opened = true; return newFakeEngine(10), nil })
	if !errors.Is(err, httpserve.ErrRemote) || opened {
		t.Fatalf("startService on 0.0.0.0: %v (engine opened: %v)", err, opened)
	}
	cfg.HTTP.AllowRemote, cfg.HTTP.Token = true, "0123456789abcdef0123"
	s, _ := startFake(t, cfg)
	req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: status %d, want 401", resp.StatusCode)
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	c, err := configFromEnv(get)
	if err != nil || c.HTTP.Addr != defaultHTTP || c.toolName() != "windbg_eval" || c.Timeout != defaultTimeout || c.MaxOutput != defaultMaxOutput || c.AllowSessionEnd {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	env = map[string]string{"WINDBG_MCP_DOTTED_NAMES": "1", "WINDBG_MCP_TIMEOUT": "5s", "WINDBG_MCP_MAX_OUTPUT": "4096"}
	if c, err = configFromEnv(get); err != nil || c.toolName() != "windbg.eval" || c.Timeout != 5*time.Second || c.MaxOutput != 4096 {
		t.Fatalf("set: %+v %v", c, err)
	}
	for k, v := range map[string]string{"WINDBG_MCP_TIMEOUT": "-1s", "WINDBG_MCP_GRACE": "soon", "WINDBG_MCP_MAX_OUTPUT": "0", "WINDBG_MCP_ECHO_MAX": "x"} {
		env = map[string]string{k: v}
		if _, err := configFromEnv(get); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%s: %v", k, v, err)
		}
	}
	for k, v := range map[string]string{"WINDBG_MCP_MAX_OUTPUT": "999999999999", "WINDBG_MCP_ECHO_MAX": "1048576"} {
		env = map[string]string{k: v}
		if _, err := configFromEnv(get); err == nil {
			t.Errorf("%s=%s above the ceiling was accepted", k, v)
		}
	}
	env = map[string]string{"WINDBG_MCP_ALLOW_SESSION_END": "1", "WINDBG_MCP_ALLOW_HOST_COMMANDS": "1"}
	if c, _ = configFromEnv(get); !reflect.DeepEqual(c.policy(), Policy{AllowSessionEnd: true, AllowHostCommands: true}) {
		t.Errorf("policy %+v", c.policy())
	}
	env = map[string]string{"WINDBG_MCP_EXTENSION_MODULES": " mex, SOSEX ,"}
	if c, err := configFromEnv(get); err != nil || !reflect.DeepEqual(c.policy().ExtensionModules, []string{"mex", "SOSEX"}) {
		t.Errorf("WINDBG_MCP_EXTENSION_MODULES: %+v, %v", c.policy(), err)
	}
	for _, v := range []string{`c:\x\evil`, "evil.dll", "a b"} {
		env = map[string]string{"WINDBG_MCP_EXTENSION_MODULES": v}
		if _, err := configFromEnv(get); err == nil || !strings.Contains(err.Error(), "WINDBG_MCP_EXTENSION_MODULES") {
			t.Errorf("WINDBG_MCP_EXTENSION_MODULES=%s: %v", v, err)
		}
	}
}
