package winexec

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestCmdLiteralTokensWithRequestEnv: the encodings of cmd.exe's literal
// tokens rest on no variable being named like the text between two of
// their % signs: CmdCommandLine's always holds a double quote (%^"^"x%
// in Windows' order, %""x% in wine's) and CmdEscape's starts with a
// caret (%^x%). A request could define such a variable itself (any name
// ALLOW_ENV=* allows), and in Windows' order its value became syntax:
// {"^\"^\"x": "&calc&"} with ["/C", "where.exe", "%x%"] ran calc. Such
// names are refused (ErrInvalidEnv); whatever passes must keep the
// tokens literal with the request's variables defined too.
func TestCmdLiteralTokensWithRequestEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{`^"^"x`, []string{"/C", "where.exe", "%x%"}},
		{`""x`, []string{"/C", "where.exe", "%x%"}},
		{`^x`, []string{"/C", "echo", "%x%"}},
		{`^"x`, []string{"/C", "where.exe", "%", "x%"}},
	} {
		rec := &recordingBackend{}
		e := mustNew(t, Config{Runner: rec, Policy: Policy{AllowExe: []string{"cmd.exe"}, AllowEnv: []string{"*"}}})
		req := Request{Exe: "cmd.exe", Args: tc.args, Env: map[string]string{tc.name: "&echo INJECTED&"}}
		_, err := e.runExec(context.Background(), req)
		if len(rec.reqs) == 0 {
			if !errors.Is(err, ErrInvalidEnv) {
				t.Errorf("%q with %q: err = %v, want ErrInvalidEnv", tc.args, tc.name, err)
			}
			continue
		}
		got := rec.reqs[0]
		checkCmdTokensWithEnv(t, tc.args[1:], got.CommandLine, got.Env)
	}
}

// checkCmdTokensWithEnv checks that cmd.exe's literal tokens rest reach the
// program (or echo) unchanged from line, in Windows' and wine's order,
// with every variable the rules allow defined, and env's names as well.
func checkCmdTokensWithEnv(t *testing.T, rest []string, line string, env map[string]string) {
	t.Helper()
	j := strings.Index(line, "/s /c ")
	if j < 0 {
		t.Fatalf("command line %q has no /s /c", line)
	}
	cmd := cmdSwitches + line[j+len("/s /c "):]
	inEnv := func(base string) bool {
		for k := range env {
			if strings.EqualFold(k, base) {
				return true
			}
		}
		return false
	}
	if strings.EqualFold(rest[0], "echo") {
		got, err := cmdModel(cmd, false, func(b string) bool { return definedUnlessCaret(b) || inEnv(b) })
		if want := rest[0] + " " + strings.Join(rest[1:], " "); err != nil || got != want {
			t.Errorf("env %q: cmd.exe reads %q as %q (%v), want %q", env, line, got, err, want)
		}
		return
	}
	for _, wine := range []bool{false, true} {
		got, err := cmdModel(cmd, wine, func(b string) bool { return definedUnlessQuoted(b) || inEnv(b) })
		if err != nil || strings.Contains(got, expandedMark) {
			t.Errorf("env %q, wine order %v: %q: %q, %v", env, wine, line, got, err)
			continue
		}
		if parsed := SplitCommandLine(got); !slices.Equal(parsed, rest) {
			t.Errorf("env %q, wine order %v: %q reaches the program as %q, want %q", env, wine, line, parsed, rest)
		}
	}
}
