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

// TestWineNameSearchSkipsCwd: a program name must not be found in the
// request's working directory. Windows' search order (and wine's) puts
// the current directory before PATH, and with a launcher the request's
// cwd is the launcher's: a model that can drop an hdc.exe into any
// directory and name that directory as cwd would run it.
func TestWineNameSearchSkipsCwd(t *testing.T) {
	e := needWine(t)
	dir := t.TempDir()
	b, err := os.ReadFile(e.argvc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "zzplanted.exe"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	ex := mustNew(t, Config{Runner: e.direct, Policy: Policy{AllowExe: []string{"zzplanted.exe"}}})
	for _, exe := range []string{"zzplanted.exe", "ZZPLANTED", "zzPlanted.EXE"} {
		res, err := ex.Run(context.Background(), Request{Exe: exe, Args: []string{"planted"}, Cwd: dir})
		if !errors.Is(err, ErrInvalidExe) {
			out := ""
			if res != nil {
				out = string(res.Stdout.Bytes())
			}
			t.Fatalf("%s: err %v, output %q; want ErrInvalidExe and nothing run", exe, err, out)
		}
	}
	// A name that is not in the directory still runs from the search
	// path, and a path is not searched.
	if _, err := ex.Run(context.Background(), Request{Exe: "zzabsent.exe", Cwd: dir}); errors.Is(err, ErrInvalidExe) {
		t.Fatalf("a name absent from the directory refused: %v", err)
	}
	ex2 := mustNew(t, Config{Runner: e.direct, Policy: Policy{AllowExe: []string{winPath(filepath.Join(dir, "zzplanted.exe"))}}})
	res, err := ex2.Run(context.Background(), Request{Exe: winPath(filepath.Join(dir, "zzplanted.exe")), Args: []string{"planted"}, Cwd: dir})
	if err != nil || !strings.Contains(string(res.Stdout.Bytes()), "706c616e746564") {
		t.Fatalf("the listed path: %v", err)
	}
}
