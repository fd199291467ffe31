package winexec

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// hostileArgs are arguments that bridges commonly lose or mangle.
var hostileArgs = []string{
	"plain",
	"",
	"with space",
	"two  spaces",
	"\ttab",
	`quote"inside`,
	`"`,
	`""`,
	`\`,
	`\\`,
	`trailing\`,
	`trailing\\`,
	`C:\Program Files\dir\`,
	`\"`,
	`\\"`,
	`a\\\"b`,
	`"quoted with space"`,
	"unicode 中文 ü 😀",
	"| & ; < > ^ % $ `",
	"%PATH%",
	"!PATH!",
	"^",
	"'single quoted'",
	"  leading and trailing  ",
	"a=b",
	"-flag",
	"/c",
	"new\nline",
	"cr\r\nlf",
}

func TestQuoteArgExact(t *testing.T) {
	// Expected forms from the MSVCRT rules (see "Everyone quotes command
	// line arguments the wrong way").
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"", `""`},
		{"a b", `"a b"`},
		{`a"b`, `"a\"b"`},
		{`a\b`, `a\b`},
		{`a\\b`, `a\\b`},
		{`a b\`, `"a b\\"`},
		{`a\"b`, `"a\\\"b"`},
		{`C:\Program Files\`, `"C:\Program Files\\"`},
		{"x\ny", "\"x\ny\""},
		{"x\ty", "\"x\ty\""},
		{`\`, `\`},
		{`"`, `"\""`},
	}
	for _, tt := range tests {
		if got := QuoteArg(tt.in); got != tt.want {
			t.Errorf("QuoteArg(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestSplitCommandLineReference(t *testing.T) {
	// Cases from Microsoft's "Parsing C++ command-line arguments" table
	// and the argv[0] rules.
	tests := []struct {
		line string
		want []string
	}{
		{`p "a b c" d e`, []string{"p", "a b c", "d", "e"}},
		{`p "ab\"c" "\\" d`, []string{"p", `ab"c`, `\`, "d"}},
		{`p a\\\b d"e f"g h`, []string{"p", `a\\\b`, "de fg", "h"}},
		{`p a\\\"b c d`, []string{"p", `a\"b`, "c", "d"}},
		{`p a\\\\"b c" d e`, []string{"p", `a\\b c`, "d", "e"}},
		{`p a"b"" c d`, []string{"p", `ab" c d`}},
		{`"C:\Program Files\x.exe" a`, []string{`C:\Program Files\x.exe`, "a"}},
		{`C:\dir\x.exe\ "a`, []string{`C:\dir\x.exe\`, "a"}},
		{"p\t a  ", []string{"p", "a"}},
		{`p ""`, []string{"p", ""}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, SplitCommandLine(tt.line)); diff != "" {
			t.Errorf("SplitCommandLine(%s) mismatch (-want +got):\n%s", tt.line, diff)
		}
	}
}

func TestBuildCommandLineRoundTrip(t *testing.T) {
	for _, exe := range []string{"hdc.exe", `C:\Program Files\tool\t.exe`, `C:\dir\`} {
		line := BuildCommandLine(exe, hostileArgs)
		got := SplitCommandLine(line)
		want := append([]string{exe}, hostileArgs...)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("round trip of %s (-want +got):\n%s", line, diff)
		}
	}
}

func TestBuildCommandLineEmptyArgsSurvive(t *testing.T) {
	// PowerShell 5.1 drops empty native arguments; we must not.
	got := SplitCommandLine(BuildCommandLine("p", []string{"", "", "x", ""}))
	if diff := cmp.Diff([]string{"p", "", "", "x", ""}, got); diff != "" {
		t.Error(diff)
	}
}

func FuzzCommandLine(f *testing.F) {
	f.Add("hdc.exe", "a b", `c"d`, `e\`)
	f.Add(`C:\Program Files\x.exe`, "", `\\"`, "中文")
	f.Add("p", "\t", `a\\\"b`, `""`)
	f.Fuzz(func(t *testing.T, exe, a, b, c string) {
		if strings.ContainsAny(exe, "\x00\" \t") || exe == "" {
			// A program name cannot hold a quote; names with blanks are
			// covered by the table tests.
			exe = "prog.exe"
		}
		args := []string{a, b, c}
		for _, s := range args {
			if strings.IndexByte(s, 0) >= 0 {
				t.Skip("NUL cannot be in a Windows command line")
			}
		}
		line := BuildCommandLine(exe, args)
		got := SplitCommandLine(line)
		want := append([]string{exe}, args...)
		if !cmp.Equal(want, got) {
			t.Fatalf("round trip of %q:\n got %q\nwant %q", line, got, want)
		}
		if allValid(exe, a, b, c) && !utf8.ValidString(line) {
			t.Fatalf("valid UTF-8 arguments produced an invalid line %q", line)
		}
	})
}

func allValid(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}
