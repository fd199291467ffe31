package peertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeReporter records what the policy did instead of stopping a test.
type fakeReporter struct{ skipped, fatal string }

func (f *fakeReporter) Helper()                           {}
func (f *fakeReporter) Skipf(format string, args ...any)  { f.skipped = fmt.Sprintf(format, args...) }
func (f *fakeReporter) Fatalf(format string, args ...any) { f.fatal = fmt.Sprintf(format, args...) }

func TestUnavailablePolicy(t *testing.T) {
	var local fakeReporter
	unavailable(&local, false, "node not found in PATH")
	if local.fatal != "" || !strings.Contains(local.skipped, "node not found in PATH") || !strings.Contains(local.skipped, RequireEnv) {
		t.Errorf("not required: skipped=%q fatal=%q; want a skip naming the reason and %s", local.skipped, local.fatal, RequireEnv)
	}

	var ci fakeReporter
	unavailable(&ci, true, "node not found in PATH")
	if ci.skipped != "" || !strings.Contains(ci.fatal, "node not found in PATH") {
		t.Errorf("required: skipped=%q fatal=%q; want a failure naming the reason", ci.skipped, ci.fatal)
	}
}

func TestRequired(t *testing.T) {
	for _, tc := range []struct {
		val  string
		want bool
	}{{"", false}, {"0", false}, {"1", true}} {
		t.Setenv(RequireEnv, tc.val)
		if got := Required(); got != tc.want {
			t.Errorf("%s=%q: Required() = %v, want %v", RequireEnv, tc.val, got, tc.want)
		}
	}
}

func TestRepoRoot(t *testing.T) {
	root := RepoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "peertest", "doc.go")); err != nil {
		t.Fatalf("RepoRoot() = %s, which does not hold this package: %v", root, err)
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// tsClientOutput is the JSON document ts-client.mjs prints.
type tsClientOutput struct {
	ProtocolVersion string         `json:"protocolVersion"`
	ServerInfo      map[string]any `json:"serverInfo"`
	Capabilities    map[string]any `json:"capabilities"`
	Tools           []string       `json:"tools"`
	Calls           []struct {
		Name   string          `json:"name"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    *int   `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Progress []struct {
			Progress float64  `json:"progress"`
			Total    *float64 `json:"total"`
			Message  string   `json:"message"`
		} `json:"progress"`
	} `json:"calls"`
}

// TestTSClientAgainstTSServer checks the two TypeScript peers against each
// other, so a broken peer shows up here rather than as a puzzling failure in
// a test of our own code.
func TestTSClientAgainstTSServer(t *testing.T) {
	args := append([]string{
		"--call", `echo={"text":"héllo"}`,
		"--call", `add={"a":2,"b":3.5}`,
		"--call", "fail",
		"--call", `slow={"ms":100}`,
		"--"}, TSServer(t)...)
	out, err := RunNode(t, ctx(t), "ts-client.mjs", args...)
	if err != nil {
		t.Fatal(err)
	}
	var got tsClientOutput
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("ts-client output: %v\n%s", err, out)
	}
	if got.ProtocolVersion == "" || got.ServerInfo["name"] != "winbridge-ts-server" {
		t.Errorf("protocolVersion=%q serverInfo=%v", got.ProtocolVersion, got.ServerInfo)
	}
	if want := []string{"echo", "add", "fail", "slow"}; !slices.Equal(got.Tools, want) {
		t.Errorf("tools = %v, want %v", got.Tools, want)
	}
	if len(got.Calls) != 4 {
		t.Fatalf("calls = %d, want 4:\n%s", len(got.Calls), out)
	}
	var add struct {
		StructuredContent struct{ Sum float64 } `json:"structuredContent"`
	}
	if err := json.Unmarshal(got.Calls[1].Result, &add); err != nil || add.StructuredContent.Sum != 5.5 {
		t.Errorf("add result = %s (%v), want structuredContent.sum 5.5", got.Calls[1].Result, err)
	}
	if !strings.Contains(string(got.Calls[2].Result), `"isError":true`) {
		t.Errorf("fail result = %s, want isError", got.Calls[2].Result)
	}
	if p := got.Calls[3].Progress; len(p) != 5 || p[4].Progress != 5 {
		t.Errorf("slow progress = %+v, want 5 notifications", p)
	}
}

// TestTSClientProtocolFlag checks that --protocol reaches the server: the
// everything server answers an older supported revision with that revision.
func TestTSClientProtocolFlag(t *testing.T) {
	args := append([]string{"--protocol", "2025-06-18", "--"}, EverythingServer(t)...)
	out, err := RunNode(t, ctx(t), "ts-client.mjs", args...)
	if err != nil {
		t.Fatal(err)
	}
	var got tsClientOutput
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("ts-client output: %v\n%s", err, out)
	}
	if got.ProtocolVersion != "2025-06-18" || !slices.Contains(got.Tools, "echo") {
		t.Errorf("protocolVersion=%q tools=%v, want 2025-06-18 and an echo tool", got.ProtocolVersion, got.Tools)
	}
}

func TestParsePowerShell(t *testing.T) {
	good := "param([string]$Name = 'world')\n" +
		"function Get-Greeting {\n  param($n)\n  \"Hello, $n\"\n}\n" +
		"$items = @(1, 2, 3) | ForEach-Object { $_ * 2 }\n" +
		"try { Get-Greeting $Name } catch { Write-Error $_ }\n"
	if err := ParsePowerShell(t, ctx(t), good); err != nil {
		t.Errorf("valid script rejected: %v", err)
	}
	if err := ParsePowerShell(t, ctx(t), "# only a comment\n"); err != nil {
		t.Errorf("comment-only script rejected: %v", err)
	}
	err := ParsePowerShell(t, ctx(t), "if ($x -eq 1 {\n  'unbalanced'\n")
	if err == nil || !strings.Contains(err.Error(), "1:") {
		t.Errorf("invalid script: err = %v, want syntax errors with positions", err)
	}
}

func TestNode22Tools(t *testing.T) {
	for _, argv := range [][]string{
		append(Conformance(t), "--version"),
		append(InspectorCLI(t), "--version"),
	} {
		out, err := exec.CommandContext(ctx(t), argv[0], argv[1:]...).CombinedOutput()
		if err != nil || len(strings.TrimSpace(string(out))) == 0 {
			t.Errorf("%s: %v\n%s", strings.Join(argv[1:], " "), err, out)
		}
	}
}

func TestBuildGoCaches(t *testing.T) {
	// A throwaway main package inside the module, so the test does not
	// depend on which examples exist yet.
	dir, err := os.MkdirTemp(filepath.Join(RepoRoot(t), "internal", "peertest"), "testdata-build-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	src := "package main\n\nfunc main() { println(\"built\") }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := "./" + filepath.ToSlash(must(filepath.Rel(RepoRoot(t), dir)))
	first := BuildGo(t, pkg)
	if second := BuildGo(t, pkg); second != first {
		t.Errorf("second BuildGo = %s, want cached %s", second, first)
	}
	out, err := exec.Command(first).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "built" {
		t.Errorf("running %s: %v %q", first, err, out)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
