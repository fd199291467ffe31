package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

func writeJSON(t *testing.T, dir, name string, v any) string {
	t.Helper()
	b, _ := json.Marshal(v)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGatewayCheck(t *testing.T) {
	dir := t.TempDir()
	cfg := writeJSON(t, dir, "cfg.json", map[string]any{"mcpServers": map[string]any{
		"shell":   map[string]any{"command": "sh"},
		"missing": map[string]any{"command": "no-such-program-winbridge"},
	}})
	pol := writeJSON(t, dir, "pol.json", map[string]any{"profiles": map[string]any{"default": map[string]any{"deny": []string{"*/delete*"}}}})
	var out, errb bytes.Buffer
	code := run([]string{"gateway", "-check", "-config", cfg, "-policy", pol}, &out, &errb)
	if code != 1 || !strings.Contains(out.String(), "configuration and policy: ok") ||
		!strings.Contains(out.String(), "server missing: no-such-program-winbridge: not found") || !strings.Contains(out.String(), "server shell: /") {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}

	bad := writeJSON(t, dir, "bad.json", map[string]any{"tools": map[string]any{"a/b": map[string]any{"approval": "maybe"}}})
	out.Reset()
	errb.Reset()
	code = run([]string{"gateway", "-check", "-config", cfg, "-policy", bad}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), `tools["a/b"].approval: want one of`) {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"gateway"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "-config is required") {
		t.Fatalf("exit %d %s", code, errb.String())
	}
}

// TestGatewayPlanAndServe fronts this very binary (the bridge, as a stdio
// upstream) and the bridge's tools in process, prints the plan, then
// serves and audits a call.
func TestGatewayPlanAndServe(t *testing.T) {
	bin := build(t)
	dir := t.TempDir()
	cfg := writeJSON(t, dir, "cfg.json", map[string]any{"mcpServers": map[string]any{
		"child": map[string]any{"command": bin, "env": map[string]string{"WINBRIDGE_BACKEND": "local", "ALLOW_EXE": "printf"}},
	}})
	pol := writeJSON(t, dir, "pol.json", map[string]any{
		"profiles": map[string]any{"default": map[string]any{"deny": []string{"bridge/hdc*"}, "target": "openai"}},
	})
	env := append(os.Environ(), "WINBRIDGE_BACKEND=local", "ALLOW_EXE=printf")

	plan := exec.Command(bin, "gateway", "-plan", "-bridge", "-config", cfg, "-policy", pol)
	plan.Env = env
	var stderr bytes.Buffer
	plan.Stderr = &stderr
	out, err := plan.Output()
	if err != nil {
		t.Fatalf("-plan: %v\n%s\n%s", err, out, stderr.String())
	}
	text := string(out)
	for _, want := range []string{"server child: ready", "server bridge: ready", "EXPOSED", "denied: denied by profile"} {
		if !strings.Contains(text, want) {
			t.Errorf("plan lacks %q:\n%s", want, text)
		}
	}
	// win_exec: a clean name needs no hash suffix; risky, so approval is
	// asked.
	if !regexp.MustCompile(`(?m)^child__win_exec +child/win_exec +\S+ +yes `).MatchString(text) {
		t.Errorf("plan row of child/win_exec:\n%s", text)
	}
	if !regexp.MustCompile(`(?m) bridge/hdc_shell .*denied: denied by profile`).MatchString(text) {
		t.Errorf("plan row of bridge/hdc_shell:\n%s", text)
	}

	audit := filepath.Join(dir, "audit.jsonl")
	cmd := exec.Command(bin, "gateway", "-bridge", "-config", cfg, "-policy", pol, "-audit", audit)
	cmd.Env = env
	stderr.Reset()
	cmd.Stderr = &stderr
	in, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, transport.NewStream(transport.NewLineFramer(struct {
		io.Reader
		io.WriteCloser
	}{stdout, in}, 0), nil), nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	valid := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	var wsl2win string
	for _, tl := range tools {
		if !valid.MatchString(tl.Name) {
			t.Errorf("listed %q", tl.Name)
		}
		if strings.HasPrefix(tl.Name, "bridge__hdc") {
			t.Errorf("denied tool listed: %s", tl.Name)
		}
		if strings.HasPrefix(tl.Name, "child__path_wsl_to_win") {
			wsl2win = tl.Name
		}
	}
	if wsl2win == "" {
		t.Fatalf("no child path.wsl_to_win among %d tools", len(tools))
	}
	// win.exec may change things: it needs approval, and this client
	// cannot be asked.
	var winexec string
	for _, tl := range tools {
		if strings.HasPrefix(tl.Name, "child__win_exec") {
			winexec = tl.Name
		}
	}
	res, err := c.CallTool(ctx, winexec, map[string]any{"exe": "printf", "args": []string{"hi"}})
	if err != nil || !res.IsError || !strings.Contains(res.TextOf(), "approval_unavailable") {
		t.Fatalf("%v %+v", err, res)
	}
	c.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(b), &rec); err != nil || rec["code"] != "approval_unavailable" || rec["server"] != "child" || (rec["tool"] != "win.exec" && rec["tool"] != "win_exec") {
		t.Fatalf("audit %s: %v", b, err)
	}
}

// TestGatewayReloadsOnChange: editing the policy while serving changes
// the surface, and the session is told.
func TestGatewayReloadsOnChange(t *testing.T) {
	bin := build(t)
	dir := t.TempDir()
	cfg := writeJSON(t, dir, "cfg.json", map[string]any{"mcpServers": map[string]any{}})
	pol := writeJSON(t, dir, "pol.json", map[string]any{})
	cmd := exec.Command(bin, "gateway", "-bridge", "-config", cfg, "-policy", pol, "-watch", "50ms")
	cmd.Env = append(os.Environ(), "WINBRIDGE_BACKEND=local", "ALLOW_EXE=printf")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	changed := make(chan struct{}, 16)
	c, err := client.Connect(ctx, transport.NewStream(transport.NewLineFramer(struct {
		io.Reader
		io.WriteCloser
	}{stdout, in}, 0), nil), &client.Options{ProtocolVersion: "2025-11-25", OnToolsChanged: func() { changed <- struct{}{} }})
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	count := func() int {
		tools, err := c.ListTools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return len(tools)
	}
	before := count()
	if before == 0 {
		t.Fatal("no bridge tools")
	}
	writeJSON(t, dir, "pol.json", map[string]any{"profiles": map[string]any{"default": map[string]any{"deny": []string{"bridge/hdc*"}}}})
	for count() == before {
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("no reload\n%s", stderr.String())
		}
	}
	if n := count(); n >= before || n == 0 {
		t.Errorf("%d tools after denying hdc, %d before", n, before)
	}
	c.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\n%s", err, stderr.String())
	}
}

// TestGatewayHTTPRoutes: -http serves -profile at /mcp and each -route's
// profile at its path, over the same upstreams.
func TestGatewayHTTPRoutes(t *testing.T) {
	bin := build(t)
	dir := t.TempDir()
	cfg := writeJSON(t, dir, "cfg.json", map[string]any{"mcpServers": map[string]any{}})
	pol := writeJSON(t, dir, "pol.json", map[string]any{"profiles": map[string]any{
		"default": map[string]any{},
		"paths":   map[string]any{"allow": []string{"bridge/path*"}, "target": "gemini"},
	}})
	cmd := exec.Command(bin, "gateway", "-bridge", "-config", cfg, "-policy", pol, "-http", "127.0.0.1:0", "-route", "/paths=paths")
	cmd.Env = append(os.Environ(), "WINBRIDGE_BACKEND=local", "ALLOW_EXE=printf")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), "url="); ok {
				select {
				case found <- strings.Fields(u)[0]:
				default:
				}
			}
		}
	}()
	var url string
	select {
	case url = <-found:
	case <-time.After(30 * time.Second):
		t.Fatal("no URL")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list := func(u string) []string {
		stream, err := mcphttp.NewStream(ctx, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := client.Connect(ctx, stream, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		tools, err := c.ListTools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range tools {
			names = append(names, tl.Name)
		}
		return names
	}
	all := list(url)
	paths := list(strings.TrimSuffix(url, "/mcp") + "/paths")
	if len(paths) != 2 || len(all) <= len(paths) {
		t.Fatalf("/mcp: %v\n/paths: %v", all, paths)
	}
	for _, n := range paths {
		if !strings.HasPrefix(n, "bridge__path_") {
			t.Errorf("/paths lists %s", n)
		}
	}
}

// -max-starts reaches the gateway's Options; a count below -1 is refused
// before anything starts.
func TestGatewayMaxStartsFlag(t *testing.T) {
	dir := t.TempDir()
	cfg := writeJSON(t, dir, "cfg.json", map[string]any{"mcpServers": map[string]any{"shell": map[string]any{"command": "sh"}}})
	for _, tc := range []struct {
		args []string
		want int
	}{{nil, 0}, {[]string{"-max-starts", "3"}, 3}, {[]string{"-max-starts", "-1"}, -1}} {
		s, err := parseGatewaySettings(append([]string{"-config", cfg}, tc.args...), io.Discard)
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		opts, cleanup, err := gatewayOptions(s, slog.New(slog.DiscardHandler), io.Discard)
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		cleanup()
		if opts.MaxConcurrentStarts != tc.want {
			t.Errorf("%q: MaxConcurrentStarts %d, want %d", tc.args, opts.MaxConcurrentStarts, tc.want)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"gateway", "-config", cfg, "-max-starts", "-2"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "-max-starts: want a count") {
		t.Fatalf("exit %d %s", code, errb.String())
	}
}
