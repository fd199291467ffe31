package winexec

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestIsBatch(t *testing.T) {
	for exe, want := range map[string]bool{
		"deploy.bat":             true,
		"DEPLOY.CMD":             true,
		`C:\tools\X~1.BaT`:       true,
		"/mnt/c/tools/run.cmd":   true,
		`\\?\C:\t\run.cmd`:       true,
		"deploy.bat.exe":         false,
		"hdc.exe":                false,
		"cmd":                    false,
		`C:\x.bat\y.exe`:         false,
		`C:\x.cmd\y`:             false,
		"run.cmdx":               false,
		"/mnt/c/tools.bat/hdc":   false,
		"C:\\tools\\bat":         false,
		"C:\\tools\\noext.":      false,
		"C:\\tools\\.cmd\\a.exe": false,
	} {
		if got := isBatch(exe); got != want {
			t.Errorf("isBatch(%q) = %v, want %v", exe, got, want)
		}
	}
}

// batchInjections are arguments that, MSVCRT-quoted, end cmd.exe's quotes,
// expand a variable or chain a command when Windows runs a batch file.
var batchInjections = []string{
	`a" & calc & "`,
	`"&calc`,
	`%PATH%`,
	`!x!`,
	`a^b`,
	`x & calc`,
	`x|calc`,
	`x>C:\out`,
	`<in`,
	`a)`,
	"a\r\ncalc",
	"a\x1a",
}

// TestBatchArgsRefusedEverywhere: the Executor (whatever its Runner) and
// every built-in backend used alone refuse them before anything starts;
// plain arguments, with spaces or "=", still pass.
func TestBatchArgsRefusedEverywhere(t *testing.T) {
	ctx := context.Background()
	b := &recordingBackend{}
	e := mustNew(t, Config{Runner: b, Policy: Policy{AllowExe: []string{`C:\tools\deploy.cmd`, "run.bat"}}})
	for _, exe := range []string{`C:\tools\deploy.cmd`, "/mnt/c/tools/DEPLOY.CMD", "run.bat", "RUN.BAT"} {
		for _, a := range batchInjections {
			if _, err := e.Run(ctx, Request{Exe: exe, Args: []string{"ok", a}}); !errors.Is(err, ErrBatchArg) {
				t.Errorf("Executor %q %q: err = %v, want ErrBatchArg", exe, a, err)
			}
		}
	}
	if len(b.reqs) != 0 {
		t.Fatalf("backend ran %d refused requests", len(b.reqs))
	}
	ok := []string{"", "plain", "with space", "--opt=value", `C:\dir\file.txt`, "a,b;c", "trailing\\", "ünï"}
	if _, err := e.Run(ctx, Request{Exe: "run.bat", Args: ok}); err != nil {
		t.Fatalf("plain arguments refused: %v", err)
	}
	// A raw CommandLine is the caller's (CmdCommandLine's) business.
	if _, err := e.Run(ctx, Request{Exe: "run.bat", CommandLine: `"a b"`}); err != nil {
		t.Fatalf("CommandLine refused: %v", err)
	}

	for name, be := range map[string]Backend{
		"powershell": &PowerShell{Exe: "/nonexistent/powershell.exe"},
		"pshost":     &PSHost{PowerShell: PowerShell{Exe: "/nonexistent/powershell.exe"}},
		"direct":     &Direct{Launcher: []string{"/nonexistent/launcher"}},
		"local":      &Local{},
	} {
		for _, a := range batchInjections {
			res, err := be.Run(ctx, &Request{Exe: `C:\tools\deploy.cmd`, Args: []string{a}, Timeout: 10 * time.Second})
			if !errors.Is(err, ErrBatchArg) || res != nil {
				t.Errorf("%s %q: err = %v, want ErrBatchArg and nothing run", name, a, err)
			}
		}
	}
}

// TestBatchEnvValues: a batch file expands %NAME% before it parses the
// line, so the request's variables reach cmd.exe's parser as its
// arguments do, on every backend and through the Executor; values that
// are plain text still pass (TestWineBatchEnv runs a script).
func TestBatchEnvValues(t *testing.T) {
	rec := &recordingBackend{}
	ex := mustNew(t, Config{Runner: rec, Policy: Policy{AllowExe: []string{`C:\t\run.bat`, "hdc.exe"}, AllowEnv: []string{"V"}}})
	for _, v := range batchInjections {
		req := Request{Exe: `C:\t\run.bat`, Env: map[string]string{"V": v}}
		if _, err := ex.Run(context.Background(), req); !errors.Is(err, ErrBatchArg) {
			t.Errorf("Executor, V=%q: err = %v, want ErrBatchArg", v, err)
		}
		if _, _, err := checkTarget(&req); !errors.Is(err, ErrBatchArg) {
			t.Errorf("backend check, V=%q: err = %v, want ErrBatchArg", v, err)
		}
		if _, err := ex.Run(context.Background(), Request{Exe: "hdc.exe", Env: map[string]string{"V": v}}); err != nil {
			t.Errorf("not a batch file, V=%q: %v", v, err)
		}
	}
	if len(rec.reqs) != len(batchInjections) {
		t.Fatalf("backend ran %d times, want only the %d hdc.exe runs", len(rec.reqs), len(batchInjections))
	}
	if _, err := ex.Run(context.Background(), Request{Exe: `C:\t\run.bat`, Env: map[string]string{"V": "plain text, 1;2=3"}}); err != nil {
		t.Errorf("plain value refused: %v", err)
	}
}
