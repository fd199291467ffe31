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

// TestWineBatchArgs: an allowlisted .bat file runs through cmd.exe, which
// does not read the MSVCRT quoting BuildCommandLine writes (under wine as
// under CreateProcess). Before ErrBatchArg, `a" & echo INJECTED & rem "`
// printed INJECTED. Plain arguments still reach the script.
func TestWineBatchArgs(t *testing.T) {
	e := needWine(t)
	dir := t.TempDir()
	bat := filepath.Join(dir, "t.bat")
	if err := os.WriteFile(bat, []byte("@echo off\r\necho ARG1=[%1] ARG2=[%2]\r\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ex := mustNew(t, Config{Runner: e.direct, Policy: Policy{AllowExe: []string{winPath(bat)}}})
	for _, arg := range []string{`a" & echo INJECTED & rem "`, `a"&echo INJECTED&rem "`, `x & echo INJECTED`, `%COMSPEC%`} {
		res, err := ex.Run(context.Background(), Request{Exe: winPath(bat), Args: []string{arg}})
		if !errors.Is(err, ErrBatchArg) {
			out := ""
			if res != nil {
				out = res.StdoutText()
			}
			t.Errorf("%q: err = %v, output %q; want ErrBatchArg", arg, err, out)
		}
	}
	res, err := ex.Run(context.Background(), Request{Exe: winPath(bat), Args: []string{"with space", "plain"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(res.StdoutText()), `ARG1=["with space"] ARG2=[plain]`; got != want {
		t.Fatalf("script printed %q, want %q", got, want)
	}
}
