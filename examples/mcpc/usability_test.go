package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/cli/clitest"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// serverEnv makes the test binary an MCP server (testServer) instead of
// running the tests; mcpc passes it with -e.
const serverEnv = "MCPC_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "1" {
		os.Exit(testServer())
	}
	os.Exit(m.Run())
}

// bidiText is what the bidi tool answers: a right-to-left override that
// shows "invoice_txt.exe" as "invoice_exe.txt", an isolate, C1 controls
// (U+009B is a CSI to many terminals), DEL and an escape sequence.
const bidiText = "invoice_\u202etxt.exe\u2066 \u0085\u009b2J\x7f\x1b]0;owned\x07"

// testServer has four tools: env (its environment), progress (two
// notifications, the second with a message that would drive a terminal),
// bidi (text that would reorder or drive a terminal) and hang (never
// answers).
func testServer() int {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mcpc-test", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "env"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, map[string]any, error) {
		return nil, map[string]any{"env": os.Environ()}, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "progress"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if err := req.Progress(ctx, 1, 2, "step one"); err != nil {
			return nil, nil, err
		}
		if err := req.Progress(ctx, 2, 2, "\x1b[2J\x1b]0;pwned\x07done\u202e"); err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "finished"}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "bidi"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: bidiText}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "hang"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	stream, err := transport.Stdio(nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := srv.Run(context.Background(), stream); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func self(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// serverEnvOf runs the env tool through mcpc with extra flags.
func serverEnvOf(t *testing.T, flags ...string) []string {
	t.Helper()
	args := append(append([]string{}, flags...), "call", "env", "--", self(t))
	code, out, errs := mcpc(t, args...)
	var res struct {
		StructuredContent struct{ Env []string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil {
		t.Fatalf("mcpc %q: %d %s %s", args, code, out, errs)
	}
	return res.StructuredContent.Env
}

func TestEnvironmentFlags(t *testing.T) {
	t.Setenv("MCPC_SECRET_TOKEN", "s3cret")
	t.Setenv("HTTPS_PROXY", "http://proxy.example:3128")
	t.Setenv("LANG", "zh_CN.UTF-8")
	env := serverEnvOf(t, "-e", serverEnv+"=1", "-e", "FOO=bar=baz")
	for _, want := range []string{"FOO=bar=baz", "HTTPS_PROXY=http://proxy.example:3128", "LANG=zh_CN.UTF-8"} {
		if !slices.Contains(env, want) {
			t.Errorf("the server lacks %s", want)
		}
	}
	if slices.Contains(env, "MCPC_SECRET_TOKEN=s3cret") {
		t.Error("a credential passed by default")
	}
	// -e KEY passes this process's value.
	env = serverEnvOf(t, "-e", serverEnv+"=1", "-e", "MCPC_SECRET_TOKEN")
	if !slices.Contains(env, "MCPC_SECRET_TOKEN=s3cret") {
		t.Error("-e KEY did not pass the variable")
	}
	t.Setenv(serverEnv, "1") // the server's marker, by inheritance alone
	env = serverEnvOf(t, "--inherit-env")
	if !slices.Contains(env, "MCPC_SECRET_TOKEN=s3cret") {
		t.Error("--inherit-env did not pass everything")
	}
	os.Unsetenv(serverEnv)

	for _, bad := range []string{"=x", "MCPC_NOT_SET_ANYWHERE"} {
		code, out, errs := mcpc(t, "-e", bad, "tools", "--", self(t))
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "-e") {
			t.Errorf("-e %q: %d %q %q; want one line naming -e", bad, code, out, errs)
		}
	}
}

func TestBadFlagReportedOnce(t *testing.T) {
	code, out, errs := mcpc(t, "-nope", "tools", "--", self(t))
	if code != 2 || out != "" || strings.Count(errs, "-nope") != 1 || strings.Count(errs, "\n") != 1 {
		t.Errorf("status %d, stdout %q, stderr %q; want the error once, on one line", code, out, errs)
	}
	code, _, errs = mcpc(t, "-help")
	if code != 0 || !strings.Contains(errs, "usage: mcpc") {
		t.Errorf("-help: %d %q", code, errs)
	}
}

func TestVersionFlag(t *testing.T) {
	code, out, errs := mcpc(t, "-version")
	if code != 0 || !strings.HasPrefix(out, "mcpc ") || errs != "" {
		t.Errorf("-version: %d %q %q", code, out, errs)
	}
}

// The subcommand is checked before anything starts: a typo costs no npx
// download.
func TestSubcommandCheckedBeforeLaunch(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the marker server is a shell script")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	script := filepath.Join(dir, "server")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"frobnicate"}, {"tools", "extra"}, {"call"}, {"call", "t", "not json"}, {"call", "t", "[1]"},
		{"read"}, {"get", "p", "{}", "x"},
	} {
		code, _, errs := mcpc(t, append(args, "--", script)...)
		if code != 2 || !strings.HasPrefix(errs, "mcpc: ") {
			t.Errorf("mcpc %q: %d %q", args, code, errs)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("mcpc %q started the server", args)
		}
	}
}

func writeConfig(t *testing.T, doc map[string]any) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "mcp.json")
	b, _ := json.Marshal(doc)
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestConfigServerChoice(t *testing.T) {
	entry := map[string]any{"command": self(t), "env": map[string]string{serverEnv: "1"}}
	cfg := writeConfig(t, map[string]any{"mcpServers": map[string]any{
		"one": entry, "two": entry, "off": map[string]any{"command": self(t), "disabled": true},
	}})
	code, _, errs := mcpc(t, "--config", cfg, "tools")
	if code != 2 || !strings.Contains(errs, "--server") || !strings.Contains(errs, "it has: off (disabled), one, two") {
		t.Errorf("no --server: %d %q", code, errs)
	}
	code, _, errs = mcpc(t, "--config", cfg, "--server", "three", "tools")
	if code != 2 || !strings.Contains(errs, `no server "three"`) || !strings.Contains(errs, "one, two") {
		t.Errorf("wrong --server: %d %q", code, errs)
	}
	code, _, errs = mcpc(t, "--config", cfg, "--server", "off", "tools")
	if code != 2 || !strings.Contains(errs, `"off" is disabled`) || !strings.Contains(errs, "mcpServers.off.disabled") {
		t.Errorf("disabled server: %d %q", code, errs)
	}
	if code, out, errs := mcpc(t, "--config", cfg, "--server", "one", "tools"); code != 0 || !strings.Contains(out, `"env"`) {
		t.Errorf("one: %d %s %s", code, out, errs)
	}
	// A VS Code file, and its timeoutMs named when it runs out.
	vs := writeConfig(t, map[string]any{"inputs": []any{}, "servers": map[string]any{
		"fs": map[string]any{"type": "stdio", "command": self(t), "env": map[string]string{serverEnv: "1"}, "timeoutMs": 300},
	}})
	if code, out, errs := mcpc(t, "--config", vs, "--server", "fs", "tools"); code != 0 || !strings.Contains(out, `"hang"`) {
		t.Errorf("VS Code file: %d %s %s", code, out, errs)
	}
	code, _, errs = mcpc(t, "--config", vs, "--server", "fs", "call", "hang")
	if code != 2 || !strings.Contains(errs, "servers.fs.timeoutMs") {
		t.Errorf("timeoutMs: %d %q; want the setting named", code, errs)
	}
}

func TestTimeoutFlagNamed(t *testing.T) {
	code, _, errs := mcpc(t, "--timeout", "500ms", "-e", serverEnv+"=1", "call", "hang", "--", self(t))
	if code != 2 || !strings.Contains(errs, "-timeout of 500ms expired") {
		t.Errorf("%d %q: want the -timeout named", code, errs)
	}
}

func TestProgressOnStderr(t *testing.T) {
	code, out, errs := mcpc(t, "--progress", "-e", serverEnv+"=1", "call", "progress", "--", self(t))
	if code != 0 || !strings.Contains(out, "finished") {
		t.Fatalf("%d %s %s", code, out, errs)
	}
	if !strings.Contains(errs, "mcpc: progress 1/2 step one\n") || !strings.Contains(errs, "mcpc: progress 2/2 ") {
		t.Errorf("stderr %q lacks the progress lines", errs)
	}
	if strings.ContainsAny(errs, "\x1b\x07\u202e") {
		t.Errorf("a control sequence reached the terminal: %q", errs)
	}
	if !strings.Contains(errs, `\x1b[2J`) {
		t.Errorf("the escaped message is missing: %q", errs)
	}
	// Off by default when stderr is not a terminal.
	if _, _, errs := mcpc(t, "-e", serverEnv+"=1", "call", "progress", "--", self(t)); strings.Contains(errs, "progress") {
		t.Errorf("progress shown without a terminal: %q", errs)
	}
}

// The default of --progress follows whether stderr is a terminal.
func TestProgressDefaultFollowsTheTerminal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the test pty is Linux's")
	}
	_, tty := clitest.OpenPTY(t)
	f, _, _, _, err := parseArgs([]string{"tools", "--", "x"}, tty)
	if err != nil || !f.progress {
		t.Errorf("on a terminal: progress %v, %v", f.progress, err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if f, _, _, _, _ := parseArgs([]string{"tools", "--", "x"}, w); f.progress {
		t.Error("on a pipe: progress on")
	}
	if f, _, _, _, _ := parseArgs([]string{"--progress=false", "tools", "--", "x"}, tty); f.progress {
		t.Error("--progress=false on a terminal: progress on")
	}
}

// A slow npx start says that it may be downloading.
func TestNpxNoticeWhenSlow(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake npx is a shell script")
	}
	dir := t.TempDir()
	release := filepath.Join(dir, "release")
	// A double of npx: it waits until the test has seen the notice (a
	// download under way), then runs the server.
	script := "#!/bin/sh\nwhile [ ! -e " + release + " ]; do sleep 0.05; done\nexec " + self(t) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "npx"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	old := npxNotice
	npxNotice = 10 * time.Millisecond
	defer func() { npxNotice = old }()

	pr, pw := io.Pipe()
	var errs bytes.Buffer
	done := make(chan int)
	go func() {
		var out bytes.Buffer
		done <- run(context.Background(), []string{"--npx", "some-package", "-e", serverEnv + "=1", "tools"}, &out, io.MultiWriter(&errs, pw))
		pw.Close()
	}()
	buf := make([]byte, 4096)
	n, _ := pr.Read(buf)
	if !strings.Contains(string(buf[:n]), "a first run downloads the package") {
		t.Errorf("first stderr line %q", buf[:n])
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	if code := <-done; code != 0 {
		t.Errorf("status %d: %s", code, errs.String())
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain 中文":               "plain 中文",
		"\x1b[31mred":            `\x1b[31mred`,
		"a\rb\nc\td":             `a\rb\nc\td`,
		"zero\u200bwidth\u00a0":  `zero\u200bwidth\u00a0`,
		"\xff":                   "\uFFFD",
		"\u202eevil\u2066":       `\u202eevil\u2066`,
		"\u009b31m":              `\u009b31m`,
		strings.Repeat("x", 600): strings.Repeat("x", 500) + "...",
	} {
		if got := printable(in, 500); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}
