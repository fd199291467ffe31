//go:build unix

package winexec

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWineAcceptedProgramPaths runs the MSVCRT argv printer from a
// directory whose name uses every kind of character the validator accepts
// (spaces, parentheses, non-ASCII letters, the allowed punctuation): once
// through the Executor and wine, and once with the exact line .NET builds
// ("<FileName>" <Arguments>) handed to CreateProcess. The real parser must
// see the program's arguments unchanged: an accepted name never ends its
// quotes early.
func TestWineAcceptedProgramPaths(t *testing.T) {
	e := needWine(t)
	dir := filepath.Join(t.TempDir(), "Program Files (x86) 中文 #$'@+[]{}~`")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "argv c.exe")
	b, err := os.ReadFile(e.argvc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prog, b, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{prog, winPath(prog)} {
		if _, err := parseProgram(p); err != nil {
			t.Fatalf("test path refused: %v", err)
		}
	}

	ex := mustNew(t, Config{Runner: e.direct, Policy: Policy{AllowExe: []string{prog}}})
	res, err := ex.Run(context.Background(), Request{Exe: prog, Args: hostileArgs})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(hostileArgs, decodeHexArgv(t, res.Stdout.Bytes())); diff != "" {
		t.Errorf("through the Executor (-sent +parsed):\n%s", diff)
	}

	line := dotnetCommandLine(winPath(prog), JoinArgs(hostileArgs))
	res = e.harness(t).run(t, Request{Args: []string{"rawexec", hex.EncodeToString([]byte(line)), prog}})
	if res.ExitCode != 0 {
		t.Fatalf("rawexec exit %d, stderr %q", res.ExitCode, res.Stderr.Bytes())
	}
	if diff := cmp.Diff(hostileArgs, decodeHexArgv(t, res.Stdout.Bytes())); diff != "" {
		t.Errorf(".NET line %s\n(-sent +parsed):\n%s", line, diff)
	}
}
