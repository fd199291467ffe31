package winexec

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/winbridge/winbridge/internal/dosdevice"
)

// ErrInvalidExe is returned (wrapped, with the reason) for a program that is
// neither a plain program name nor an absolute path Windows takes as written.
var ErrInvalidExe = errors.New("winexec: invalid program")

// ErrInvalidCwd is returned (wrapped, with the reason) for a working
// directory that is not an absolute path, or that is a network share or a
// device path.
var ErrInvalidCwd = errors.New("winexec: invalid working directory")

// progKind is the form a program or directory is written in.
type progKind int

const (
	kindName   progKind = iota // hdc.exe: found by the search path
	kindDrive                  // C:\tools\hdc.exe
	kindLinux                  // /usr/bin/printf, /mnt/c/tools/hdc.exe
	kindUNC                    // \\host\share\hdc.exe
	kindDevice                 // \\?\C:\x.exe, \\.\pipe\x, \??\C:\x.exe
)

// program is a validated program name or absolute path.
type program struct {
	kind progKind
	// text is the canonical spelling handed to backends: Windows forms
	// with "\" separators, everything else as written.
	text string
	// key compares equal for two spellings of the same name or file: ASCII
	// case folded (Windows file names ignore case; non-ASCII is compared
	// exactly rather than with a folding Windows may not share), a final
	// ".exe" dropped, /mnt/<drive>/ turned into <drive>:\ .
	key string
	// suffix is the final ".exe" as spelled, or "".
	suffix string
}

// stem is text without suffix.
func (p program) stem() string { return p.text[:len(p.text)-len(p.suffix)] }

// parseProgram validates exe as a program name or an absolute path. The
// rules keep what reaches Windows free of anything it would parse further:
//
//   - no double quote or control character: .NET and WSL quote the program
//     name with double quotes and Windows splits the line again, so a quote
//     would end the name and start another program;
//   - none of % ^ & ! , ; = (a .bat or .cmd program runs through cmd.exe,
//     which expands and splits on them) nor < > | ? * (never in a Windows
//     file name);
//   - no ":" but the drive colon (alternate data streams), no component
//     with a leading or trailing space or a trailing dot (Windows strips
//     them, so "hdc.exe." is hdc.exe), no "." or ".." component, no empty
//     component, no DOS device name (NUL, CON, COM1, ...);
//   - outside ASCII only letters, marks and digits: no Unicode spaces
//     (.NET trims them), format characters (bidi overrides), nor
//     punctuation or modifier letters that an ANSI code page's best-fit
//     mapping turns into a quote, backslash or cmd.exe metacharacter
//     (fullwidth quote, yen sign, U+02BA);
//   - a relative path (tools\hdc.exe, ..\hdc.exe, C:hdc.exe, \hdc.exe) is
//     refused: it depends on a directory the caller does not control.
func parseProgram(exe string) (program, error) {
	p, why := parsePath(exe, true)
	if why != "" {
		return program{}, fmt.Errorf("%w %q: %s", ErrInvalidExe, exe, why)
	}
	return p, nil
}

// parseDir validates a working directory: an absolute drive or Linux path,
// or a UNC path onto a WSL distribution (\\wsl.localhost\, \\wsl$\), which
// is how Linux directories look from Windows. Other UNC paths make Windows
// connect and authenticate to the host; device paths reach past the file
// system. Both are refused.
func parseDir(dir string) (program, error) {
	p, why := parsePath(dir, false)
	switch {
	case why != "":
	case p.kind == kindName:
		why = "not an absolute path"
	case p.kind == kindDevice:
		why = "device paths are not allowed"
	case p.kind == kindUNC && !isWSLShare(p.text):
		why = "network shares are not allowed (only \\\\wsl.localhost\\ and \\\\wsl$\\)"
	}
	if why != "" {
		return program{}, fmt.Errorf("%w %q: %s", ErrInvalidCwd, dir, why)
	}
	return p, nil
}

// isWSLShare compares the host in ASCII case only: Windows compares host
// names with its own upper-case table, which maps no other character to
// an ASCII letter, while strings.EqualFold takes U+017F (long s) for "s",
// so `\\wſl.localhost\` passed as WSL's share and Windows connected and
// authenticated to a host of that name.
func isWSLShare(unc string) bool {
	host, _, _ := strings.Cut(unc[2:], `\`)
	host = asciiLower(host)
	return host == "wsl.localhost" || host == "wsl$"
}

// parsePath returns the parsed form of s, or the reason it is refused.
// file says s names a file (a program), whose last component may carry
// the optional .exe suffix.
func parsePath(s string, file bool) (program, string) {
	switch {
	case s == "":
		return program{}, "empty"
	case !utf8.ValidString(s):
		return program{}, "not valid UTF-8"
	}
	isSep := func(c byte) bool { return c == '\\' || c == '/' }
	var (
		kind   progKind
		prefix string // canonical text before the components
		rest   string // the components, separated by sep
		sep    = "\\"
	)
	switch {
	case len(s) >= 4 && isSep(s[0]) && isSep(s[1]) && (s[2] == '?' || s[2] == '.') && isSep(s[3]),
		strings.HasPrefix(s, `\??\`):
		// Device paths skip Win32 normalisation ("/" is not a separator
		// there), so they are taken only with backslashes and matched
		// only as written.
		if strings.Contains(s, "/") {
			return program{}, "device path with a forward slash"
		}
		kind, prefix, rest = kindDevice, s[:4], s[4:]
		if first, tail, ok := strings.Cut(rest, `\`); ok && len(first) == 2 && first[1] == ':' && isLetter(first[0]) {
			prefix, rest = prefix+first+`\`, tail
		}
	case len(s) >= 2 && isSep(s[0]) && isSep(s[1]):
		kind, prefix, rest = kindUNC, `\\`, s[2:]
	case len(s) >= 3 && s[1] == ':' && isLetter(s[0]) && isSep(s[2]):
		kind, prefix, rest = kindDrive, s[:2]+`\`, s[3:]
	case s[0] == '/':
		if strings.Contains(s, `\`) {
			return program{}, "mixes Linux and Windows separators"
		}
		kind, prefix, rest, sep = kindLinux, "/", s[1:], "/"
	case strings.ContainsAny(s, `\/`):
		return program{}, "a relative path; give a program name or an absolute path"
	case len(s) >= 2 && s[1] == ':' && isLetter(s[0]):
		return program{}, "a drive-relative path; give a program name or an absolute path"
	default:
		kind, rest = kindName, s
	}
	parts := strings.FieldsFunc(rest, func(r rune) bool { return r == '\\' || r == '/' })
	if n := strings.Count(rest, "/") + strings.Count(rest, `\`) + 1; rest == "" || n != len(parts) {
		if kind == kindDrive && rest == "" && !file {
			// C:\ itself, as a directory.
			return program{kind: kind, text: prefix, key: "p:" + asciiLower(prefix)}, ""
		}
		if kind == kindLinux && rest == "" && !file {
			return program{kind: kind, text: "/", key: "l:/"}, ""
		}
		return program{}, "an empty path component"
	}
	if kind == kindUNC && len(parts) < 2 {
		return program{}, `a UNC path needs \\host\share`
	}
	for _, c := range parts {
		if why := badComponent(c); why != "" {
			return program{}, why
		}
	}
	p := program{kind: kind, text: prefix + strings.Join(parts, sep)}
	if file {
		last := parts[len(parts)-1]
		if len(last) > 4 && strings.EqualFold(last[len(last)-4:], ".exe") {
			p.suffix = last[len(last)-4:]
		}
	}
	stem := asciiLower(p.stem())
	switch kind {
	case kindName:
		p.key = "n:" + stem
	case kindDrive:
		p.key = "p:" + stem
	case kindLinux:
		// /mnt/c/x is C:\x: the same key as its Windows spelling.
		if len(parts) >= 2 && parts[0] == "mnt" && len(parts[1]) == 1 && isLetter(parts[1][0]) {
			p.key = "p:" + asciiLower(parts[1]) + `:\` + strings.Join(strings.Split(stem, "/")[3:], `\`)
		} else {
			p.key = "l:" + stem
		}
	case kindUNC:
		p.key = "u:" + stem
	case kindDevice:
		p.key = "d:" + stem
	}
	return p, ""
}

// badComponent returns why c cannot be one component of a program name or
// path, or "".
func badComponent(c string) string {
	switch {
	case c == "." || c == "..":
		return `a "." or ".." component`
	case c[0] == ' ' || c[len(c)-1] == ' ':
		return "a component with a leading or trailing space (Windows strips it)"
	case c[len(c)-1] == '.':
		return "a component with a trailing dot (Windows strips it)"
	case dosdevice.Name(c):
		return fmt.Sprintf("%q is a DOS device name", c)
	}
	for _, r := range c {
		if r < utf8.RuneSelf {
			if !safeASCII(byte(r)) {
				return fmt.Sprintf("character %q is not allowed in a program or directory", r)
			}
			continue
		}
		if !unicode.IsLetter(r) && !unicode.IsMark(r) && !unicode.IsDigit(r) || bestFitPunct(r) {
			return fmt.Sprintf("character %U is not allowed in a program or directory (outside ASCII only letters and digits)", r)
		}
	}
	return ""
}

// safeASCII reports whether c may appear in a path component: letters,
// digits, space and punctuation that neither CreateProcess, the MSVCRT
// parser nor cmd.exe gives a meaning.
func safeASCII(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte(" #$'()+-.@[]_`{}~", c) >= 0
}

// bestFitPunct reports letters that the best-fit tables of ANSI code
// pages turn into ASCII punctuation for a program reading its command line
// through the "A" functions: the spacing modifier letters (U+02BA becomes
// a double quote, U+02C6 a caret) and the click letters (U+01C0 "|", U+01C3
// "!").
func bestFitPunct(r rune) bool {
	return 0x01C0 <= r && r <= 0x01C3 || 0x02B0 <= r && r <= 0x02FF
}

func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}

// checkTarget validates the program, working directory, environment
// names and, for a batch file, the arguments of a request for a backend,
// which may run without an Executor in front of it, and returns program
// and directory in canonical form: what the backend runs is what passed.
func checkTarget(req *Request) (exe, cwd string, err error) {
	for k := range req.Env {
		if err := checkEnvName(k); err != nil {
			return "", "", err
		}
	}
	p, err := parseProgram(req.Exe)
	if err != nil {
		return "", "", err
	}
	if req.CommandLine == "" {
		if err := checkBatchArgs(p.text, req.Args); err != nil {
			return "", "", err
		}
	}
	if err := checkBatchEnv(p.text, req.Env); err != nil {
		return "", "", err
	}
	if req.Cwd != "" {
		d, err := parseDir(req.Cwd)
		if err != nil {
			return "", "", err
		}
		cwd = d.text
	}
	return p.text, cwd, nil
}
