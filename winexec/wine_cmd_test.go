//go:build unix

package winexec

import (
	"context"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// cmdRun is what one cmd.exe line did under wine.
type cmdRun struct {
	res   *Result
	files []string // created in the working directory
}

// runCmdLine has wprobe CreateProcess wine's cmd.exe with exactly
// "cmd.exe "+tail, in an empty working directory.
//
// A run with nothing on stdout that created nothing is run once more: the
// argv printer always prints at least "[]", and wine on two loaded cores
// has been seen (in CI rehearsals with other test jobs running) to end
// the process tree at once without it. Such a run says nothing about the
// command line, and a line that really makes cmd.exe print nothing does
// so the second time too, where it is judged.
func runCmdLine(t *testing.T, e *wineEnv, tail string) cmdRun {
	t.Helper()
	line := "cmd.exe " + tail
	for attempt := 1; ; attempt++ {
		dir := t.TempDir()
		res, err := e.direct.Run(context.Background(), &Request{
			Exe:  e.wprobe,
			Args: []string{"rawexec", hex.EncodeToString([]byte(line)), "cmd.exe"},
			Cwd:  dir,
		})
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, e := range ents {
			files = append(files, e.Name())
		}
		if attempt == 1 && res.Stdout.Total == 0 && len(files) == 0 {
			t.Logf("%s: nothing on stdout (exit %d, timed out %v, %v, stderr %q); running it once more", line, res.ExitCode, res.TimedOut, res.Duration, res.Stderr.Bytes())
			continue
		}
		return cmdRun{res: res, files: files}
	}
}

// checkCmdUnderWine is the property of CmdCommandLine under wine's
// cmd.exe: the argv printer prints exactly args, and nothing else runs
// (no other output, no error message, no file created).
func checkCmdUnderWine(t *testing.T, e *wineEnv, args []string) {
	t.Helper()
	tail, err := CmdCommandLine(append([]string{winPath(e.argvc)}, args...))
	if err != nil {
		return
	}
	r := runCmdLine(t, e, tail)
	if r.res.Stdout.Total == 0 {
		t.Fatalf("cmd.exe %s: nothing on stdout twice (exit %d, stderr %q, files %q)", tail, r.res.ExitCode, r.res.Stderr.Bytes(), r.files)
	}
	got := decodeHexArgv(t, r.res.Stdout.Bytes())
	if diff := cmp.Diff(args, got); diff != "" {
		t.Errorf("cmd.exe %s\n(-sent +received):\n%s", tail, diff)
	}
	if r.res.ExitCode != 0 || r.res.Stderr.Total != 0 || len(r.files) != 0 {
		t.Errorf("cmd.exe %s: something else ran: exit %d, stderr %q, files %q", tail, r.res.ExitCode, r.res.Stderr.Bytes(), r.files)
	}
}

// TestWineCmdCommandLine runs the argv printer through wine's cmd.exe with
// lines from CmdCommandLine: every metacharacter and percent sign must
// reach the program literally. On the old escaping "%&echo INJECTED" ran
// a second command and "%>created" created a file.
func TestWineCmdCommandLine(t *testing.T) {
	e := needWine(t)
	var args []string
	for _, a := range append(append([]string{}, hostileArgs...), cmdHostileArgs...) {
		if !strings.ContainsAny(a, "\r\n") {
			args = append(args, a)
		}
	}
	checkCmdUnderWine(t, e, args)
	for _, a := range cmdHostileArgs {
		checkCmdUnderWine(t, e, []string{a})
	}
}

// FuzzCmdCommandLine checks CmdCommandLine against the model and under
// wine's cmd.exe. Its seeds (testdata/fuzz/FuzzCmdCommandLine) run as a
// normal test wherever wine is installed; fuzzing it is slow (one wine
// start per input) and a developer action.
func FuzzCmdCommandLine(f *testing.F) {
	for _, a := range cmdHostileArgs {
		f.Add(a, "b c", "%")
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		args := []string{a, b, c}
		checkCmdCommandLine(t, append([]string{"prog.exe"}, args...))
		if !utf8.ValidString(a + b + c) {
			return // wine's UTF-16 conversion replaces invalid bytes
		}
		checkCmdUnderWine(t, needWine(t), args)
	})
}

// TestWineCmdRule runs win_exec's cmd.exe rule through an Executor with
// the direct backend under wine: several arguments after /C are literal
// tokens, one argument is cmd.exe syntax.
func TestWineCmdRule(t *testing.T) {
	e := needWine(t)
	ex := mustNew(t, Config{Policy: Policy{AllowExe: []string{"*"}}, Runner: e.direct})
	run := func(exe string, args ...string) (string, error) {
		t.Helper()
		res, err := ex.Run(context.Background(), Request{Exe: exe, Args: args, Cwd: t.TempDir()})
		if err != nil {
			return "", err
		}
		if res.ExitCode != 0 || res.Stderr.Total != 0 {
			t.Errorf("%s %q: exit %d stderr %q", exe, args, res.ExitCode, res.Stderr.Bytes())
		}
		return strings.ReplaceAll(res.StdoutText(), "\r\n", "\n"), nil
	}
	for _, exe := range []string{"cmd.exe", "cmd", "CMD.EXE", `C:\Windows\System32\cmd.exe`, `c:\windows\system32\CMD.EXE`} {
		for _, sw := range [][]string{{"/C"}, {"/c"}, {"/S", "/D", "/Q", "/C"}, {"/d", "/k"}} {
			args := append(append([]string{}, sw...), "echo", "a&b")
			// /K stays for commands from stdin, which is empty: cmd.exe
			// prints its prompt and exits.
			if out, err := run(exe, args...); err != nil || !strings.HasPrefix(out, "a&b\n") || (sw[len(sw)-1] != "/k" && out != "a&b\n") {
				t.Errorf("%s %q: %q, %v; want a&b printed", exe, args, out, err)
			}
		}
		args := []string{"/C", "echo a&echo b"}
		if out, err := run(exe, args...); err != nil || out != "a\nb\n" {
			t.Errorf("%s %q: %q, %v; want two commands", exe, args, out, err)
		}
	}
	// Literal tokens to a program need a raw command line, which direct
	// passes only with its job helper (TestWineJobHelperCmdRule).
	if _, err := ex.Run(context.Background(), Request{Exe: "cmd.exe", Args: []string{"/C", winPath(e.argvc), "x y"}}); !errors.Is(err, ErrRawCommandLine) {
		t.Errorf("literal tokens with a blank through direct without helper: err = %v, want ErrRawCommandLine", err)
	}
	// Refusals run nothing.
	for _, args := range [][]string{
		{"echo a&b"},             // not a switch before /C
		{"/X", "/C", "echo"},     // unknown switch
		{"/C", "call", "x", "y"}, // re-parses its arguments
		{"/V:ON", "/C", "echo", "!x!"},
		{"/C", "echo", "a\nb"},
	} {
		if _, err := ex.Run(context.Background(), Request{Exe: "cmd.exe", Args: args}); !errors.Is(err, ErrCmdArgs) {
			t.Errorf("cmd.exe %q: err = %v, want ErrCmdArgs", args, err)
		}
	}
}
