package winexec

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIsCmdExe(t *testing.T) {
	for _, exe := range []string{
		"cmd", "cmd.exe", "CMD.EXE", "Cmd", `C:\Windows\System32\cmd.exe`, `c:/windows/system32/CMD`,
		"/mnt/c/Windows/System32/cmd.exe", `\\?\C:\Windows\System32\cmd.exe`, "cmd.exe.", "cmd.exe ",
		"cmd.exe::$DATA", `C:\Windows\System32\CMD.EXE::$data`,
	} {
		if !isCmdExe(exe) {
			t.Errorf("isCmdExe(%q) = false", exe)
		}
	}
	for _, exe := range []string{"hdc.exe", "cmdx.exe", "xcmd", `C:\cmd\hdc.exe`, "cmd.com", "powershell.exe", ""} {
		if isCmdExe(exe) {
			t.Errorf("isCmdExe(%q) = true", exe)
		}
	}
}

func TestCmdExeLine(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		// One argument: cmd.exe syntax, as it is.
		{[]string{"/C", "dir | findstr x"}, `/d /s /c "dir | findstr x"`},
		{[]string{"/c", "dir"}, `/d /s /c dir`},
		{[]string{"/S", "/D", "/Q", "/K", "echo a&echo b"}, `/d /q /s /k "echo a&echo b"`},
		{[]string{"/C", `"C:\Program Files\x.exe" "a b"`}, `/d /s /c ""C:\Program Files\x.exe" "a b""`},
		{[]string{"/V:ON", "/C", "echo !x!"}, `/d /v:on /s /c "echo !x!"`},
		{[]string{"/C", ""}, `/d /s /c ""`},
		{[]string{"/C"}, `/d /c`},
		// Several: literal tokens.
		{[]string{"/C", "echo", "a&b"}, `/d /v:off /s /c "echo a^&b"`},
		{[]string{"/c", "echo", "a", "b c"}, `/d /v:off /s /c "echo a b c"`},
		{[]string{"/C", "where.exe", "a&b", "%PATH%"}, `/d /v:off /s /c "where.exe a^&b %^"^"PATH%^"^""`},
		{[]string{"/C", "exit", "300"}, `/d /v:off /s /c "exit 300"`},
		// No /C or /K: left to BuildCommandLine.
		{nil, ""},
		{[]string{"/Q"}, ""},
	}
	for _, tt := range tests {
		got, err := cmdExeLine(tt.args)
		if err != nil || got != tt.want {
			t.Errorf("cmdExeLine(%q) = %s, %v; want %s", tt.args, got, err, tt.want)
		}
	}
	for _, args := range [][]string{
		{"echo a&b"}, {"x", "/C", "y"}, {"/X", "/C", "dir"}, {"/Cdir"}, {"/T:0A", "/C", "dir"},
		{"/C", "a\r\nb"}, {"/C", "echo", "a\nb"},
		{"/V:ON", "/C", "echo", "!PATH!"},
		{"/C", "call", "x", "a&b"}, {"/C", "CALL.", "x"}, {"/C", "@call", "x"}, {"/C", "for", "%i", "in"},
		{"/C", "if", "1==1", "call"}, {"/C", "start", "x"}, {"/C", "cmd", "/c"}, {"/C", `C:\Windows\System32\cmd.exe`, "/c"},
		{"/C", "x.bat", "a&b"}, {"/C", "prog%x%.exe", "a"},
	} {
		if got, err := cmdExeLine(args); !errors.Is(err, ErrCmdArgs) {
			t.Errorf("cmdExeLine(%q) = %s, %v; want ErrCmdArgs", args, got, err)
		}
	}
}

// TestCmdRuleModel: the literal-token form keeps every hostile token
// literal in both phase orders.
func TestCmdRuleModel(t *testing.T) {
	for _, a := range append(append([]string{}, hostileArgs...), cmdHostileArgs...) {
		line, err := cmdExeLine([]string{"/C", "prog.exe", a})
		if err != nil {
			continue
		}
		tail := line[len("/d /v:off /s /c "):]
		for _, wine := range []bool{false, true} {
			got, err := cmdModel(cmdSwitches+tail, wine, definedUnlessQuoted)
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			if args := SplitCommandLine(got); len(args) != 2 || args[1] != a {
				t.Errorf("%q reaches the program as %q", line, args)
			}
		}
	}
}

// TestExecutorCmdRule: the Executor applies the rule before the backend
// sees the request, and its refusals run nothing.
func TestExecutorCmdRule(t *testing.T) {
	rec := &recordingBackend{}
	ex := mustNew(t, Config{Policy: Policy{AllowExe: []string{"*"}}, Runner: rec})
	if _, err := ex.Run(t.Context(), Request{Exe: `C:\Windows\system32\CMD.exe`, Args: []string{"/C", "echo", "a&b"}}); err != nil {
		t.Fatal(err)
	}
	if len(rec.reqs) != 1 || rec.reqs[0].CommandLine != `/d /v:off /s /c "echo a^&b"` || rec.reqs[0].Args != nil {
		t.Errorf("backend got %+v", rec.reqs)
	}
	if _, err := ex.Run(t.Context(), Request{Exe: "cmd", Args: []string{"echo", "a&b"}}); !errors.Is(err, ErrCmdArgs) || len(rec.reqs) != 1 {
		t.Errorf("err %v, backend got %+v", err, rec.reqs)
	}
}

func TestCanonicalArgs(t *testing.T) {
	for _, line := range []string{`/d /s /c "dir | findstr x"`, `/d /v:off /s /c "echo a^&b"`, `/d /s /c exit`} {
		args, err := canonicalArgs(line)
		if err != nil || JoinArgs(args) != line {
			t.Errorf("canonicalArgs(%s) = %q, %v", line, args, err)
		}
	}
	for _, line := range []string{`/d /s /c "echo ^"a b^""`, `/c  x`, `"a"`} {
		if _, err := canonicalArgs(line); !errors.Is(err, ErrRawCommandLine) {
			t.Errorf("canonicalArgs(%s): err = %v", line, err)
		}
	}
}

// TestDirectJobHelperArgv: with the job helper, direct starts the helper
// with the hex-encoded Windows command line, the program in Windows form.
func TestDirectJobHelperArgv(t *testing.T) {
	hexOf := func(s string) string { return hex.EncodeToString([]byte(s)) }
	tests := []struct {
		d    *Direct
		req  Request
		want []string
	}{
		{
			&Direct{Launcher: []string{"wine"}, JobHelper: "/opt/jobrun.exe"},
			Request{Exe: "/opt/p q.exe", Args: []string{"a b", "c"}},
			[]string{"wine", "/opt/jobrun.exe", hexOf(`"Z:\opt\p q.exe" "a b" c`)},
		},
		{
			&Direct{Launcher: []string{"wine"}, JobHelper: "/opt/jobrun.exe"},
			Request{Exe: "cmd.exe", CommandLine: `/d /v:off /s /c "echo ^"a b^""`},
			[]string{"wine", "/opt/jobrun.exe", hexOf(`cmd.exe /d /v:off /s /c "echo ^"a b^""`)},
		},
		{
			&Direct{JobHelper: `C:\tools\jobrun.exe`},
			Request{Exe: "/mnt/c/Windows/System32/cmd.exe", CommandLine: `/d /s /c "dir | findstr x"`},
			[]string{"/mnt/c/tools/jobrun.exe", hexOf(`C:\Windows\System32\cmd.exe /d /s /c "dir | findstr x"`)},
		},
	}
	for _, tt := range tests {
		got, _, err := tt.d.argv(&tt.req)
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("argv(%+v) = %q, %v; want %q", tt.req, got, err, tt.want)
		}
	}
	// Without the helper a line no argv quotes to is refused.
	if _, _, err := (&Direct{Launcher: []string{"wine"}}).argv(&Request{Exe: "cmd.exe", CommandLine: `/d /s /c "echo ^"a b^""`}); !errors.Is(err, ErrRawCommandLine) {
		t.Errorf("err = %v, want ErrRawCommandLine", err)
	}
}

// TestCmdRuleReparsingBehindDelimiters: cmd.exe skips delimiters (blanks,
// ',', ';', '=', and on Windows possibly other Unicode blanks such as
// U+00A0) and '@' before the command word, so ";call" or "\u00a0call" as
// the first literal token ran CALL, which parses its arguments again
// (a&b runs b). Refused like "call" itself, whatever wine makes of them.
func TestCmdRuleReparsingBehindDelimiters(t *testing.T) {
	for _, first := range []string{";call", ",CALL", "=call", "\vcall", "\fcall", "\u00a0call", "\u3000call", "\u2003for",
		"@ call", "@;if", "(call", ";start", ",cmd", "\u00a0cmd.exe", ";C:\\Windows\\System32\\cmd.exe",
		"cmd.exe\u00a0", "cmd.exe;", "cmd.exe::$DATA", `C:\Windows\System32\CMD.EXE:x`} {
		if _, err := cmdExeLine([]string{"/C", first, "echo", "a&b"}); !errors.Is(err, ErrCmdArgs) {
			t.Errorf("%q as the first literal token: %v, want ErrCmdArgs", first, err)
		}
	}
	for _, ok := range []string{"calc.exe", "format-x", "iffy", "forfiles", "startx", "cmdkey"} {
		if _, err := cmdExeLine([]string{"/C", ok, "a"}); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

// TestCmdRuleBatchBehindSuffixes: cmd.exe runs deploy.bat::$DATA (the
// file's data stream) as the batch file it is, and may take a trailing
// delimiter or Unicode blank for the end of the name; before, such a name
// passed as an ordinary program, and its literal tokens reached %1 of a
// batch file, where a&b runs b.
func TestCmdRuleBatchBehindSuffixes(t *testing.T) {
	for _, first := range []string{"deploy.bat::$DATA", `C:\x\deploy.BAT::$data`, "deploy.bat:x", "deploy.cmd:stream:$DATA",
		"deploy.bat;", "deploy.bat,", "deploy.bat=", "deploy.bat\u00a0", "deploy.cmd\v", "deploy.bat\u200b", "deploy.bat. ."} {
		if _, err := cmdExeLine([]string{"/C", first, "a&b"}); !errors.Is(err, ErrCmdArgs) {
			t.Errorf("%q as the program: %v, want ErrCmdArgs", first, err)
		}
	}
	for _, ok := range []string{`C:\x\deploy.exe`, "batch.exe", "x.bat.exe", `C:\x.bat\tool.exe`} {
		if _, err := cmdExeLine([]string{"/C", ok, "a"}); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}
