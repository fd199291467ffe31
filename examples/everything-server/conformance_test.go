package main

import (
	"bufio"
	"context"

	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/peertest"
)

// The official conformance suite (@modelcontextprotocol/conformance,
// pinned in internal/peers/node) runs against the fixture server and the
// conformance client at both protocol eras. The suite's exit status is the
// verdict: every scored scenario passes, and the client may fail only the
// scenarios listed in examples/everything-client's baselines (none).

var revisions = []string{"2025-11-25", "2026-07-28"}

func TestConformanceServer(t *testing.T) {
	conf := peertest.Conformance(t)
	bin := peertest.BuildGo(t, "./examples/everything-server")
	// Port 0, and the server says where it listens: no guessing, no polling.
	srv := exec.Command(bin, "-http", "127.0.0.1:0")
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Process.Kill()
		srv.Wait()
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), "url="); ok {
				select {
				case urls <- strings.Fields(u)[0]:
				default:
				}
			}
		}
	}()
	var url string
	select {
	case url = <-urls:
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not report where it listens")
	}
	ran := map[string]bool{}
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			out := runSuite(t, append(conf, "server", "--url", url, "--requirements", rev))
			for _, name := range summaryScenarios(out) {
				ran[name] = true
			}
			if !strings.Contains(out, "Total:") {
				t.Fatalf("no summary from the suite:\n%s", out)
			}
			// The suite's exit status counts only the scenarios the
			// revision scores; the extension (tasks-*) and pending ones it
			// also runs must pass as well.
			if failed := failedScenarios(out); len(failed) > 0 {
				t.Fatalf("scenarios failed, scored or not: %v\n%s", failed, out)
			}
		})
	}
	// Scenarios no revision requires (the extensions', such as
	// sep-2640-skills-*) run one by one: every scenario list prints passes.
	for _, name := range listScenarios(t, conf, "Server scenarios") {
		if ran[name] {
			continue
		}
		t.Run(name, func(t *testing.T) {
			checkAlone(t, runSuite(t, append(conf, "server", "--url", url, "--scenario", name)))
		})
	}
}

func TestConformanceClient(t *testing.T) {
	conf := peertest.Conformance(t)
	bin := peertest.BuildGo(t, "./examples/everything-client")
	root := peertest.RepoRoot(t)
	ran := map[string]bool{}
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			baseline := filepath.Join(root, "examples/everything-client", "expected-failures-"+rev+".yaml")
			out := runSuite(t, append(conf, "client", "--command", bin, "--requirements", rev, "--expected-failures", baseline))
			if !strings.Contains(out, "Baseline check passed") {
				t.Fatalf("baseline check did not pass:\n%s", out)
			}
			for _, name := range summaryScenarios(out) {
				ran[name] = true
			}
		})
	}
	// The client scenarios no revision requires run one by one, except
	// auth/*, which OAuth (not implemented here yet) covers.
	for _, name := range listScenarios(t, conf, "Client scenarios") {
		if ran[name] || strings.HasPrefix(name, "auth/") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			out := runSuite(t, append(conf, "client", "--command", bin, "--scenario", name))
			if !strings.Contains(out, "OVERALL: PASSED") {
				t.Fatalf("%s did not pass:\n%s", name, out)
			}
			checkAlone(t, out)
		})
	}
}

// listScenarios returns the scenarios the suite's list prints in one
// section ("Server scenarios", "Client scenarios").
func listScenarios(t *testing.T, conf []string, section string) []string {
	t.Helper()
	out := runSuite(t, append(conf, "list"))
	var names []string
	in := false
	for line := range strings.Lines(out) {
		switch {
		case strings.HasPrefix(line, section):
			in = true
		case strings.TrimSpace(line) == "" || !strings.HasPrefix(line, " "):
			in = false
		case in:
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "-" {
				names = append(names, f[1])
			}
		}
	}
	if len(names) == 0 {
		t.Fatalf("no %s in the suite's list:\n%s", section, out)
	}
	return names
}

// summaryScenarios returns the scenarios a run's summary reports on.
func summaryScenarios(out string) []string {
	_, summary, _ := strings.Cut(out, "SUMMARY ===")
	var names []string
	for line := range strings.Lines(summary) {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "✓" || f[0] == "✗") {
			names = append(names, strings.TrimSuffix(f[1], ":"))
		}
	}
	return names
}

// checkAlone checks the outcome of a single-scenario run: every check
// passed, none failed or warned, and none was skipped (a scenario whose
// feature is missing skips its checks, which the suite counts as a pass).
func checkAlone(t *testing.T, out string) {
	t.Helper()
	if !strings.Contains(out, " 0 failed, 0 warnings") || strings.Contains(out, "SKIPPED") || strings.Contains(out, "Passed: 0/0") {
		t.Fatalf("not every check passed:\n%s", out)
	}
}

// The 2025-03-26 authorization scenarios are in no requirement set (that
// revision is not scored) but a client must still reach such servers: no
// protected resource metadata, the authorization server at the MCP
// server's origin, with metadata or with only the default endpoints.
func TestConformanceClientAuthBackCompat(t *testing.T) {
	conf := peertest.Conformance(t)
	bin := peertest.BuildGo(t, "./examples/everything-client")
	for _, sc := range []string{"auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback"} {
		t.Run(strings.TrimPrefix(sc, "auth/"), func(t *testing.T) {
			out := runSuite(t, append(conf, "client", "--command", bin, "--scenario", sc))
			if !strings.Contains(out, "OVERALL: PASSED") {
				t.Fatalf("%s did not pass:\n%s", sc, out)
			}
		})
	}
}

// runSuite runs the suite and fails the test on a non-zero exit, showing
// the suite's own summary.
func runSuite(t *testing.T, argv []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tail := string(out)
		if i := strings.Index(tail, "=== SUMMARY ==="); i >= 0 {
			tail = tail[i:]
		}
		t.Fatalf("%s: %v\n%s", strings.Join(argv[2:], " "), err, tail)
	}
	return string(out)
}

// failedScenarios returns the scenarios the suite's summary marks failed,
// including those it does not score.
func failedScenarios(out string) []string {
	_, summary, _ := strings.Cut(out, "=== SUMMARY ===")
	var failed []string
	for line := range strings.Lines(summary) {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "✗ "); ok {
			failed = append(failed, name)
		}
	}
	return failed
}
