//go:build unix

package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestMainJob runs the README's first command and checks what it prints.
func TestMainJob(t *testing.T) {
	cmd := exec.Command("go", "run", ".")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run ./examples/demo: %v\n%s", err, out)
	}
	for _, want := range []string{
		"connected to winbridge",
		"tools: ",
		"win_exec",
		"hdc_shell",
		`[say "hi"] [] [a|b & c; $HOME \ 中文]`,
		`-> C:\Users\me\Documents\report.txt`,
		"FAKE0123456789  USB  Connected",
		"HELLO FROM THE DEVICE: 7 BYTES",
		"'exit 3' on the device -> exitCode 3, isError true",
		"demo: OK",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
