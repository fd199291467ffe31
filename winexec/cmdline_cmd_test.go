package winexec

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// cmdHostileArgs are arguments aimed at cmd.exe's parser: every
// metacharacter after a %, variable references in all forms, quotes and
// blanks around percent signs.
var cmdHostileArgs = []string{
	"%&echo INJECTED", "%>created", "%<in", "%|more", "%(", "%)", "%^", `%"`, `%"&x`,
	"%PATH%", "%%PATH%%", "%PATH:~0,3%", `%PATH:"=%`, "%a %PATH%", "%", "%%", "% %", "%\t%",
	"a%", "%a", "!PATH!", "^!PATH^!", "a&b", "a^&b", `a"&"b`, `"&"`, `\"&`, `\\"&`,
	"trailing\\", `C:\dir\ %x%`, "(a)", "a|b", "<x>", "^", "^^", "%=C:%", "%CD%", "%ERRORLEVEL%",
	"@", ",;=", "中文 %PATH% ü",
}

func TestCmdEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"echo a&b", "echo a^&b"},
		{"a|b<c>d", "a^|b^<c^>d"},
		{`"x"`, `^"x^"`},
		{"%PATH%", "%^PATH%"},
		{"%A% b", "%^A%^ b"},
		{"(!^)", "^(^!^^^)"},
		{"plain text", "plain text"},
		// The old escaping wrote %^^& here: the caret escaped the caret
		// and & ran a second command.
		{"%&x", "%^&x"},
		{"%>f", "%^>f"},
		{"%%x", "%^%^x"},
		{"100%", "100%"},
	}
	for _, tt := range tests {
		if got := CmdEscape(tt.in); got != tt.want {
			t.Errorf("CmdEscape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCmdEscapeModel: in Windows' phase order, no escaped text leaves a
// metacharacter live or a variable expanded (unless its name starts with
// a caret), and the text comes back. Wine's order expands %VAR%, as
// CmdEscape documents.
func TestCmdEscapeModel(t *testing.T) {
	for _, s := range append(append([]string{}, hostileArgs...), cmdHostileArgs...) {
		if strings.ContainsAny(s, "\r\n") {
			continue
		}
		got, err := cmdModel(cmdSwitches+`"echo `+CmdEscape(s)+`"`, false, definedUnlessCaret)
		if err != nil {
			t.Errorf("CmdEscape(%q): %v", s, err)
			continue
		}
		if got != "echo "+s {
			t.Errorf("CmdEscape(%q) reads back as %q", s, got)
		}
	}
}

func TestCmdCommandLine(t *testing.T) {
	got, err := CmdCommandLine([]string{`C:\Program Files\x.exe`, "a&b", "", "%PATH%", "a b"})
	if err != nil {
		t.Fatal(err)
	}
	want := `/d /v:off /s /c ""C:\Program Files\x.exe" a^&b ^"^" %^"^"PATH%^"^" a^" ^"b"`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if _, err := CmdCommandLine([]string{"x", "a\nb"}); err != ErrCmdNewline {
		t.Errorf("newline: err = %v, want ErrCmdNewline", err)
	}
	if _, err := CmdCommandLine(nil); err == nil {
		t.Error("empty argv: want error")
	}
	var ae *CmdArgError
	for _, argv := range [][]string{
		{`C:\100%\x.exe`}, {`x".exe`}, {""}, {"x.bat", "a"}, {`C:\t\X.CMD`}, {"x", "a\x1ab"}, {"x", "\x00"},
		{"x", strings.Repeat("a", MaxCmdLine)},
	} {
		if _, err := CmdCommandLine(argv); err == nil || (!errors.As(err, &ae) && !strings.Contains(err.Error(), "limit")) {
			t.Errorf("CmdCommandLine(%q): err = %v, want a refusal", argv, err)
		}
	}
}

// checkCmdCommandLine is the property of CmdCommandLine: in both phase
// orders, with every variable defined, nothing is expanded, no
// metacharacter is live, and the program's MSVCRT parser gets argv back.
func checkCmdCommandLine(t *testing.T, argv []string) {
	t.Helper()
	tail, err := CmdCommandLine(argv)
	if err != nil {
		return
	}
	for _, wine := range []bool{false, true} {
		got, err := cmdModel(tail, wine, definedUnlessQuoted)
		if err != nil {
			t.Fatalf("wine order %v: %q: %v", wine, tail, err)
		}
		if strings.Contains(got, expandedMark) {
			t.Fatalf("wine order %v: %q expands a variable: %q", wine, tail, got)
		}
		if parsed := SplitCommandLine(got); !cmp.Equal(parsed, argv) {
			t.Fatalf("wine order %v: %q reaches the program as %q, want %q", wine, tail, parsed, argv)
		}
	}
}

func TestCmdCommandLineModel(t *testing.T) {
	for _, a := range append(append([]string{}, hostileArgs...), cmdHostileArgs...) {
		checkCmdCommandLine(t, []string{"prog.exe", a})
		checkCmdCommandLine(t, []string{`C:\Program Files (x86)\a&b\p.exe`, a, a})
	}
	checkCmdCommandLine(t, append([]string{"p"}, cmdHostileArgs...))
}

// FuzzCmdCommandLineModel checks the property against the model; the
// same inputs run through wine's cmd.exe in FuzzCmdCommandLine.
func FuzzCmdCommandLineModel(f *testing.F) {
	for _, a := range cmdHostileArgs {
		f.Add(a, "x", "%")
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		if !utf8.ValidString(a + b + c) {
			return
		}
		checkCmdCommandLine(t, []string{"prog.exe", a, b, c})
	})
}
