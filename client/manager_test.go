//go:build linux

package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/logrec"
	"github.com/winbridge/winbridge/internal/proctest"
)

// helperServerJSON is an mcpServers entry running the test binary as the
// helper server, with extra entries merged in.
func helperServerJSON(t *testing.T, extra map[string]any, env ...string) map[string]any {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]any{helperEnv: "server", "GORACE": "atexit_sleep_ms=0"}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		e[k] = v
	}
	m := map[string]any{"command": exe, "env": e, "someHostSpecificField": []int{1, 2}}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func parseConfig(t *testing.T, servers map[string]any) *client.Config {
	t.Helper()
	b, err := json.Marshal(map[string]any{"mcpServers": servers, "globalShortcut": "x"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := client.ParseConfig(b)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestManagerAggregatesAndRoutes(t *testing.T) {
	noLeaks(t)
	cfg := parseConfig(t, map[string]any{
		"alpha": helperServerJSON(t, map[string]any{"timeoutMs": 5000}),
		"beta":  helperServerJSON(t, map[string]any{"autoRestart": true}),
		"off":   helperServerJSON(t, map[string]any{"disabled": true}),
		"bad":   helperServerJSON(t, nil, "WB_EXIT_AT_START=2"),
	})
	m := client.NewManager(cfg, &client.ManagerOptions{Process: client.ProcessOptions{Logger: quietLog}})
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := m.Start(ctx)
	var ee *client.ExitError
	if err == nil || !strings.HasPrefix(err.Error(), "bad: ") || !errors.As(err, &ee) || ee.Code != 2 {
		t.Errorf("Start: %v, want the failure of bad (status 2)", err)
	}
	tools, err := m.Tools(ctx)
	if err == nil {
		t.Errorf("Tools did not report the broken server")
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"alpha__echo", "beta__echo", "alpha__crash"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	if slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "off__") }) {
		t.Errorf("a disabled server's tools are listed: %v", names)
	}
	res, err := m.CallTool(ctx, "beta__echo", map[string]string{"text": "routed"})
	if err != nil || !strings.Contains(res.TextOf(), "routed") {
		t.Fatalf("beta__echo: %v %+v", err, res)
	}
	if _, err := m.CallTool(ctx, "nosuch__echo", nil); err == nil {
		t.Errorf("unknown tool routed")
	}

	status := map[string]client.ServerStatus{}
	var pids []int
	for _, s := range m.Status() {
		status[s.Name] = s
		if s.Pid != 0 {
			pids = append(pids, s.Pid)
		}
	}
	if s := status["alpha"]; s.State != client.StateReady || s.Pid == 0 || s.Tools < 5 {
		t.Errorf("alpha: %+v", s)
	}
	if s := status["off"]; !s.Disabled || s.Running {
		t.Errorf("off: %+v", s)
	}
	if s := status["bad"]; s.Running || s.Err == nil {
		t.Errorf("bad: %+v", s)
	}
	if len(pids) != 2 {
		t.Fatalf("pids %v", pids)
	}
	start := time.Now()
	m.Close()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %v", d)
	}
	for _, pid := range pids {
		if !proctest.Gone(pid) {
			t.Errorf("server %d left running", pid)
		}
	}
	if _, err := m.CallTool(ctx, "alpha__echo", nil); !errors.Is(err, client.ErrManagerClosed) {
		t.Errorf("after Close: %v", err)
	}
}

func TestManagerCollisionFreeNames(t *testing.T) {
	noLeaks(t)
	cfg := parseConfig(t, map[string]any{"a": helperServerJSON(t, nil), "b": helperServerJSON(t, nil)})
	// A naming that drops the server makes every tool collide.
	m := client.NewManager(cfg, &client.ManagerOptions{
		ToolName: func(server, tool string) string { return tool },
		Process:  client.ProcessOptions{Logger: quietLog},
	})
	defer m.Close()
	ctx := context.Background()
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, tl := range tools {
		if seen[tl.Name] {
			t.Errorf("duplicate name %s", tl.Name)
		}
		seen[tl.Name] = true
	}
	// Both want "echo": both are renamed, each with a hash of its own
	// server and tool, whichever server answered first.
	var echoes []string
	for name := range seen {
		if strings.HasPrefix(name, "echo_") && len(name) == len("echo_")+8 {
			echoes = append(echoes, name)
		}
	}
	if seen["echo"] || len(echoes) != 2 {
		t.Fatalf("names %v", seen)
	}
	servers := map[string]bool{}
	for _, name := range echoes {
		server, tool, err := m.Route(name)
		if err != nil || tool != "echo" {
			t.Errorf("Route(%s) = %s, %s, %v", name, server, tool, err)
		}
		servers[server] = true
	}
	if !servers["a"] || !servers["b"] {
		t.Errorf("the two echo tools route to %v", servers)
	}
}

// Server names a host would reject (dots, non-ASCII, over the cap) give
// tool names that pass ^[a-zA-Z0-9_-]{1,N}$ with the cap in force; the
// names are the same in a new Manager (a restart), and a new Manager
// routes a name kept from the old one before it has listed anything.
func TestManagerNamesPassHostRules(t *testing.T) {
	noLeaks(t)
	long := strings.Repeat("s", 70)
	servers := map[string]any{"my.server": helperServerJSON(t, nil), "文件": helperServerJSON(t, nil), long: helperServerJSON(t, nil)}
	for _, limit := range []int{0, 40} {
		names := func(m *client.Manager) map[string]bool {
			tools, err := m.Tools(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]bool{}
			capLen := limit
			if capLen == 0 {
				capLen = 64
			}
			for _, tl := range tools {
				if !regexp.MustCompile(`^[a-zA-Z0-9_-]+$`).MatchString(tl.Name) || len(tl.Name) > capLen || out[tl.Name] {
					t.Errorf("limit %d: tool name %q", limit, tl.Name)
				}
				out[tl.Name] = true
			}
			return out
		}
		opts := &client.ManagerOptions{MaxToolNameLen: limit, Process: client.ProcessOptions{Logger: quietLog}}
		m1 := client.NewManager(parseConfig(t, servers), opts)
		first := names(m1)
		m1.Close()
		m2 := client.NewManager(parseConfig(t, servers), opts)
		var echo string
		for name := range first {
			if strings.HasPrefix(name, "my_server__echo_") {
				echo = name
			}
		}
		res, err := m2.CallTool(context.Background(), echo, map[string]string{"text": "kept"})
		if err != nil || !strings.Contains(res.TextOf(), "kept") {
			t.Errorf("limit %d: %s in a new Manager: %v %+v", limit, echo, err, res)
		}
		if second := names(m2); !maps.Equal(first, second) {
			t.Errorf("limit %d: names changed across a restart:\n%v\n%v", limit, first, second)
		}
		m2.Close()
	}
}

func TestManagerEphemeralServerStopsWhenIdle(t *testing.T) {
	noLeaks(t)
	cfg := parseConfig(t, map[string]any{"eph": helperServerJSON(t, map[string]any{"lifecycle": "ephemeral"})})
	m := client.NewManager(cfg, &client.ManagerOptions{IdleTimeout: 200 * time.Millisecond, Process: client.ProcessOptions{Logger: quietLog}})
	defer m.Close()
	ctx := context.Background()
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if s := m.Status()[0]; s.Running {
		t.Fatalf("ephemeral server started by Start: %+v", s)
	}
	// Listing tools is a use: it wakes the server, which then sleeps.
	if tools, err := m.Tools(ctx); err != nil || len(tools) < 5 {
		t.Fatalf("tools: %d %v", len(tools), err)
	}
	if _, err := m.CallTool(ctx, "eph__echo", map[string]string{"text": "wake"}); err != nil {
		t.Fatal(err)
	}
	pid := m.Status()[0].Pid
	if pid == 0 {
		t.Fatal("no pid after a call")
	}
	if !pollUntil(5*time.Second, func() bool { return !m.Status()[0].Running && proctest.Gone(pid) }) {
		t.Fatalf("still running after the idle timeout: %+v", m.Status()[0])
	}
	// Its tools are still listed while it sleeps, without waking it.
	tools, err := m.Tools(ctx)
	if err != nil || len(tools) < 5 || m.Status()[0].Running {
		t.Errorf("tools while asleep: %d %v, running %v", len(tools), err, m.Status()[0].Running)
	}
	// And it wakes for the next call.
	if _, err := m.CallTool(ctx, "eph__echo", map[string]string{"text": "again"}); err != nil || m.Status()[0].Pid == pid {
		t.Errorf("second wake: %v", err)
	}
}

func TestParseConfigErrorsNameThePath(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"mcpServers":{"fs":{"command":"npx","args":["-y","pkg",3]}}}`, "mcpServers.fs.args[2]: want string, got number"},
		{`{"mcpServers":{"fs":{"args":[]}}}`, "mcpServers.fs.command: missing"},
		{`{"mcpServers":{"fs":{"command":"x","env":{"A":1}}}}`, "mcpServers.fs.env.A: want string, got number"},
		{`{"mcpServers":{"my server":{"command":"x","timeoutMs":-5}}}`, `mcpServers["my server"].timeoutMs: want a positive whole number`},
		{`{"mcpServers":{"fs":{"command":"x","lifecycle":"forever"}}}`, `mcpServers.fs.lifecycle: want "keep-alive" or "ephemeral", got "forever"`},
		{`{"mcpServers":{"fs":{"command":"x","disabled":"yes"}}}`, "mcpServers.fs.disabled: want boolean, got string"},
		{`{"mcpServers":{"web":{"type":"http"}}}`, `mcpServers.web.url: missing ("type" is "http")`},
		{`{"mcpServers":[]}`, "mcpServers: want object, got array"},
		{`{}`, "mcpServers: missing"},
		{"{\n  \"mcpServers\": {,}\n}", "line 2, column 18"},
	} {
		_, err := client.ParseConfig([]byte(tc.doc))
		var ce *client.ConfigError
		if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseConfig(%s) = %v, want a *ConfigError containing %q", tc.doc, err, tc.want)
		}
	}
	// Several problems are all reported.
	_, err := client.ParseConfig([]byte(`{"mcpServers":{"a":{"command":1},"b":{"command":"x","cwd":false}}}`))
	if err == nil || !strings.Contains(err.Error(), "mcpServers.a.command") || !strings.Contains(err.Error(), "mcpServers.b.cwd") {
		t.Errorf("joined errors: %v", err)
	}
}

func TestParseConfigFull(t *testing.T) {
	cfg, err := client.ParseConfig([]byte(`{"mcpServers":{"fs":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/tmp"],
		"env":{"DEBUG":"1"},"cwd":"/tmp","disabled":false,"timeoutMs":30000,"autoRestart":true,"lifecycle":"ephemeral","unknown":{"x":1}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	fs := cfg.Servers["fs"]
	if fs == nil || fs.Command != "npx" || len(fs.Args) != 3 || fs.Env["DEBUG"] != "1" || fs.Cwd != "/tmp" ||
		fs.Timeout != 30*time.Second || !fs.AutoRestart || fs.Lifecycle != client.Ephemeral {
		t.Fatalf("parsed %+v", fs)
	}
	cmd := fs.CommandSpec()
	if !cmd.IsNpx() || cmd.Dir != "/tmp" || !slices.Equal(cmd.Env, []string{"DEBUG=1"}) {
		t.Errorf("command %+v", cmd)
	}
}

// A "url" entry parses, and the Manager, which runs stdio servers only,
// refuses it with ErrRemoteServer while the stdio servers beside it serve.
func TestManagerRefusesURLServers(t *testing.T) {
	noLeaks(t)
	cfg := parseConfig(t, map[string]any{
		"local": helperServerJSON(t, nil),
		"web":   map[string]any{"type": "http", "url": "http://127.0.0.1:1/mcp"},
	})
	m := client.NewManager(cfg, &client.ManagerOptions{Process: client.ProcessOptions{Logger: quietLog}})
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Start(ctx); !errors.Is(err, client.ErrRemoteServer) || !strings.Contains(err.Error(), "web: ") {
		t.Errorf("Start: %v, want web: ErrRemoteServer", err)
	}
	tools, err := m.Tools(ctx)
	if !errors.Is(err, client.ErrRemoteServer) || len(tools) == 0 {
		t.Errorf("Tools: %d, %v", len(tools), err)
	}
	if _, err := m.Server(ctx, "web"); !errors.Is(err, client.ErrRemoteServer) {
		t.Errorf("Server(web): %v", err)
	}
	for _, st := range m.Status() {
		if st.Name == "web" && (!errors.Is(st.Err, client.ErrRemoteServer) || st.Running) {
			t.Errorf("status %+v", st)
		}
		if st.Name == "local" && !st.Running {
			t.Errorf("status %+v", st)
		}
	}
}

// A server whose tools/list holds null among its tools: the Manager lists
// the others, and its own tools, instead of dereferencing the null (which
// panicked in Tools and took the host down).
func TestManagerToolsSkipsNullTools(t *testing.T) {
	noLeaks(t)
	null := helperServerJSON(t, nil, "WB_TOOLS=[null,{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}},null]")
	null["env"].(map[string]any)[helperEnv] = "junk"
	cfg := parseConfig(t, map[string]any{"nulls": null, "alpha": helperServerJSON(t, nil)})
	m := client.NewManager(cfg, &client.ManagerOptions{Process: client.ProcessOptions{Logger: quietLog}})
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "nulls__t") || !slices.Contains(names, "alpha__echo") {
		t.Errorf("tools %v, want nulls__t and alpha__echo among them", names)
	}
}

// A server that pages its tools slowly and without end holds Manager.Tools
// no longer than its timeoutMs: the others' tools come back with an error
// naming it. Before, each page had the timeout, so the aggregate waited
// for all of the server's pages (here 50, 5 s; up to 10000).
func TestManagerToolsBoundedBySlowServer(t *testing.T) {
	noLeaks(t)
	slow := helperServerJSON(t, map[string]any{"timeoutMs": 300}, "WB_PAGE_DELAY_MS=100")
	slow["env"].(map[string]any)[helperEnv] = "junk"
	cfg := parseConfig(t, map[string]any{"slow": slow, "alpha": helperServerJSON(t, nil)})
	m := client.NewManager(cfg, &client.ManagerOptions{Process: client.ProcessOptions{Logger: quietLog}})
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err := m.Start(ctx) // start-up is bounded apart, and not measured here
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	tools, err := m.Tools(context.Background()) // no deadline: each server's timeout applies
	elapsed := time.Since(start)
	if !errors.Is(err, client.ErrTimeout) || !strings.Contains(err.Error(), "slow") {
		t.Fatalf("Tools after %v: %v, want the slow server's ErrTimeout", elapsed, err)
	}
	if elapsed > 3*time.Second {
		t.Errorf("Tools took %v with a slow server whose timeoutMs is 300", elapsed)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "alpha__echo") {
		t.Errorf("tools %v, want alpha__echo among them", names)
	}
}

// The stderr of each managed server is logged under its name in the
// configuration. Before, StderrLogger named the command only ("node",
// "python", the test binary here): the lines of two servers running the
// same program could not be told apart, and one could write lines that
// read as the other's.
func TestManagerStderrLoggerNamesTheServer(t *testing.T) {
	noLeaks(t)
	cfg := parseConfig(t, map[string]any{
		"one": helperServerJSON(t, nil, "WB_STDERR_FLOOD=1"),
		"two": helperServerJSON(t, nil, "WB_STDERR_FLOOD=1"),
	})
	var buf logrec.Buffer
	m := client.NewManager(cfg, &client.ManagerOptions{Process: client.ProcessOptions{Logger: quietLog,
		StderrLogger: slog.New(slog.NewTextHandler(&buf, nil))}})
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if !pollUntil(10*time.Second, func() bool { return strings.Count(buf.String(), "END-OF-FLOOD") == 2 }) {
		t.Fatalf("stderr lines logged: %q", buf.String())
	}
	for line := range strings.SplitSeq(buf.String(), "\n") {
		if strings.Contains(line, "END-OF-FLOOD") && !strings.Contains(line, "mcpServer=one") && !strings.Contains(line, "mcpServer=two") {
			t.Errorf("a stderr line without its server's name: %q", line)
		}
	}
}

// TestManagerConfigureNamesCallbacks: Configure gives each server its own
// options, after the configuration's timeoutMs, so callbacks set there
// know which server called them; the template is left as it was.
func TestManagerConfigureNamesCallbacks(t *testing.T) {
	noLeaks(t)
	cfg := parseConfig(t, map[string]any{
		"one": helperServerJSON(t, map[string]any{"timeoutMs": 7000}, "WB_STDERR_FLOOD=1"),
		"two": helperServerJSON(t, nil, "WB_STDERR_FLOOD=1"),
	})
	template := &client.Options{Logger: quietLog}
	var (
		mu       sync.Mutex
		stderrOf = map[string]int{}
		readyOf  = map[string]int{}
		timeouts = map[string]time.Duration{}
	)
	m := client.NewManager(cfg, &client.ManagerOptions{
		Process: client.ProcessOptions{Logger: quietLog, Client: template},
		Configure: func(server string, o *client.ProcessOptions) {
			mu.Lock()
			timeouts[server] = o.Client.Timeout
			mu.Unlock()
			o.Client.Timeout = 42 * time.Second // the server's copy
			o.OnStderr = func(line string) {
				if strings.Contains(line, "END-OF-FLOOD") {
					mu.Lock()
					stderrOf[server]++
					mu.Unlock()
				}
			}
			o.OnStateChange = func(s client.State, _ error) {
				if s == client.StateReady {
					mu.Lock()
					readyOf[server]++
					mu.Unlock()
				}
			}
		},
	})
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if !pollUntil(10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return stderrOf["one"] == 1 && stderrOf["two"] == 1
	}) {
		mu.Lock()
		t.Fatalf("stderr seen per server: %v", stderrOf)
	}
	mu.Lock()
	defer mu.Unlock()
	if readyOf["one"] != 1 || readyOf["two"] != 1 {
		t.Errorf("ready per server: %v", readyOf)
	}
	if timeouts["one"] != 7*time.Second || timeouts["two"] != 0 {
		t.Errorf("Configure saw timeouts %v, want one's timeoutMs and none for two", timeouts)
	}
	if template.Timeout != 0 {
		t.Errorf("Configure changed the template: Timeout %v", template.Timeout)
	}
}
