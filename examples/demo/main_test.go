package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMainJob builds the demo and runs it as the README does.
func TestMainJob(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "demo")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).CombinedOutput()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	for _, want := range []string{
		"protocol 2025-11-25",
		"protocol 2026-07-28",
		`sum(20, 22) -> {"sum":42}`,
		`echo -> quotes " and \ backslashes, 中文`,
		`sum("twenty") -> isError=true`,
		"/properties/a",
		"server exited cleanly",
		"demo: OK",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "stray print") {
		t.Errorf("the server's stray print reached the demo's output:\n%s", out)
	}
}
