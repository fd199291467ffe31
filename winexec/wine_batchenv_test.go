//go:build unix

package winexec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWineBatchEnv: a batch file reads the variables it is given with
// cmd.exe's parser too. %V% is expanded before the line is parsed, so a
// value is syntax in the script as an argument would be: the batch rule
// holds allowed variables' values to the same text as arguments. Before,
// V="x & echo INJECTED" printed INJECTED from `echo V=%V%`.
func TestWineBatchEnv(t *testing.T) {
	e := needWine(t)
	dir := t.TempDir()
	bat := filepath.Join(dir, "t.bat")
	if err := os.WriteFile(bat, []byte("@echo off\r\necho V=[%V%]\r\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ex := mustNew(t, Config{Runner: e.direct, Policy: Policy{AllowExe: []string{winPath(bat)}, AllowEnv: []string{"V"}}})
	for _, v := range []string{"x & echo INJECTED", "x|echo INJECTED", `"&echo INJECTED&"`, "x)&echo INJECTED"} {
		res, err := ex.Run(context.Background(), Request{Exe: winPath(bat), Env: map[string]string{"V": v}})
		if !errors.Is(err, ErrBatchArg) {
			out := ""
			if res != nil {
				out = res.StdoutText() + res.StderrText()
			}
			t.Errorf("V=%q: err = %v, output %q; want ErrBatchArg", v, err, out)
		}
	}
	res, err := ex.Run(context.Background(), Request{Exe: winPath(bat), Env: map[string]string{"V": "plain text, 1;2=3"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(res.StdoutText()), `V=[plain text, 1;2=3]`; got != want {
		t.Fatalf("script printed %q, want %q", got, want)
	}
}
