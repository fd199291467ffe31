package winexec

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// dotnetCommandLine is the line .NET's Process.Start hands CreateProcess
// (lpApplicationName NULL) for FileName and Arguments: the trimmed file
// name between double quotes, then the arguments.
func dotnetCommandLine(fileName, arguments string) string {
	s := `"` + strings.TrimSpace(fileName) + `"`
	if arguments != "" {
		s += " " + arguments
	}
	return s
}

// fuzzArgs follow the program name in every line the fuzz target builds,
// so a program name that ends its quotes early shows as changed arguments.
var fuzzArgs = []string{"a b", `x"y`, "", `tr\`}

// checkRunnable asserts that prog, a program a check accepted, reaches
// Windows as itself through every command-line builder winexec uses, and
// re-parses to itself.
func checkRunnable(t *testing.T, prog string) {
	t.Helper()
	p, err := parseProgram(prog)
	if err != nil || p.text != prog {
		t.Fatalf("accepted program %q does not re-validate to itself: %q, %v", prog, p.text, err)
	}
	for name, line := range map[string]string{
		".NET":             dotnetCommandLine(prog, JoinArgs(fuzzArgs)),
		"BuildCommandLine": BuildCommandLine(prog, fuzzArgs),
		"quoteProgram":     quoteProgram(prog) + " " + JoinArgs(fuzzArgs),
	} {
		argv := SplitCommandLine(line)
		if len(argv) == 0 || argv[0] != prog || !slices.Equal(argv[1:], fuzzArgs) {
			t.Fatalf("%s line %q for program %q splits into %q", name, line, prog, argv)
		}
	}
}

// FuzzCheckExe checks the exe validator and the allowlist decision:
// anything accepted is a valid program that every command-line builder
// carries to Windows unchanged, and, unless "*" allowed it, it is the
// listed entry (or the configured HDC_EXE) and not the request's
// spelling.
func FuzzCheckExe(f *testing.F) {
	seeds := [][3]string{
		{"hdc.exe", "", injectExe},
		{"hdc.exe", "", "HDC"},
		{"hdc.exe", "", `C:\evil\hdc.exe`},
		{"hdc.exe", "", `\\host\share\hdc.exe`},
		{"hdc.exe", "", `\\?\C:\x\hdc.exe`},
		{"hdc.exe", "", `..\hdc.exe`},
		{"hdc.exe", "", "hdc.exe."},
		{"hdc.exe", "", "hdc.exe::$DATA"},
		{"hdc.exe", `C:\sdk\hdc.exe`, `c:/sdk/HDC.exe`},
		{"hdc.exe", `C:\sdk\hdc.exe`, `C:\sdk2\hdc.exe`},
		{`C:\Windows\System32\cmd.exe`, "", "/mnt/c/windows/system32/cmd"},
		{"/mnt/c/tools/hdc.exe", "", `C:\tools\hdc.exe`},
		{`\\host\share\x.exe`, "", `//HOST/share/x.exe`},
		{"*", "", `C:/Program Files (x86)/x.exe`},
		{"*", "", "hdc\uff02 x.exe"},
		{"*", "", " hdc.exe"},
		{"*", "", "C:\\x\u00a0\\y.exe"},
		{"cmd", "", "cmd.exe"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, entry, configured, exe string) {
		p := Policy{AllowExe: []string{entry}}
		prog, err := p.checkExe(exe, configured)
		req, reqErr := parseProgram(exe)
		if reqErr != nil {
			if !errors.Is(err, ErrInvalidExe) {
				t.Fatalf("invalid exe %q (%v): check returned %q, %v", exe, reqErr, prog, err)
			}
			return
		}
		if err != nil {
			var na *NotAllowedError
			if !errors.As(err, &na) {
				t.Fatalf("valid exe %q refused with %v, want a NotAllowedError", exe, err)
			}
			return
		}
		checkRunnable(t, prog)
		got, _ := parseProgram(prog)
		if got.key != req.key {
			t.Fatalf("exe %q (key %q) ran as %q (key %q)", exe, req.key, prog, got.key)
		}
		if entry == "*" {
			if prog != req.text {
				t.Fatalf(`"*": exe %q ran as %q, want its canonical form %q`, exe, prog, req.text)
			}
			return
		}
		e, err := parseProgram(entry)
		if err != nil {
			t.Fatalf("invalid entry %q allowed %q", entry, exe)
		}
		switch {
		case e.kind == kindName && req.kind == kindName:
			// The entry's letters; only the .exe suffix is the request's.
			if got.stem() != e.stem() {
				t.Fatalf("entry %q allowed %q to run as %q", entry, exe, prog)
			}
		case e.kind == kindName:
			// A path allowed by a name entry: only the configured one.
			c, err := parseProgram(configured)
			if err != nil || prog != c.text || baseKey(c) != e.key {
				t.Fatalf("name entry %q allowed path %q as %q (configured %q)", entry, exe, prog, configured)
			}
		default:
			if prog != e.text {
				t.Fatalf("path entry %q allowed %q to run as %q", entry, exe, prog)
			}
			if (req.kind == kindUNC || req.kind == kindDevice || e.kind == kindUNC || e.kind == kindDevice) && req.kind != e.kind {
				t.Fatalf("entry %q (kind %d) allowed %q (kind %d)", entry, e.kind, exe, req.kind)
			}
		}
	})
}

// FuzzParseDir checks that an accepted working directory is absolute,
// neither a device path nor a share other than WSL's, and canonical.
func FuzzParseDir(f *testing.F) {
	for _, s := range []string{`C:\`, `\\evil\share`, `\\wsl.localhost\Ubuntu\home`, `\\?\C:\`, "/mnt/c", "..", `C:x`, "/", "\\\\w\u017fl.localhost\\Ubuntu"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dir string) {
		d, err := parseDir(dir)
		if err != nil {
			if !errors.Is(err, ErrInvalidCwd) {
				t.Fatalf("%q: %v", dir, err)
			}
			return
		}
		switch d.kind {
		case kindDrive, kindLinux:
		case kindUNC:
			// Judged apart from isWSLShare: the host must be WSL's in
			// ASCII, which is all Windows folds (U+017F is no "s").
			host, _, _ := strings.Cut(d.text[2:], `\`)
			if h := strings.ToLower(host); !isASCII(host) || h != "wsl.localhost" && h != "wsl$" {
				t.Fatalf("share %q accepted", dir)
			}
		default:
			t.Fatalf("%q accepted as kind %d", dir, d.kind)
		}
		if again, err := parseDir(d.text); err != nil || again != d {
			t.Fatalf("%q: canonical %q re-parses to %+v, %v", dir, d.text, again, err)
		}
		if strings.ContainsAny(d.text, "\"\x00\r\n\t%^&") {
			t.Fatalf("%q accepted", dir)
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
