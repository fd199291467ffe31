package winexec

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
)

// ErrCmdNewline is returned by CmdCommandLine for an argument containing a
// line break: cmd.exe ends a command at a line break and there is no escape
// for it.
var ErrCmdNewline = errors.New("winexec: cmd.exe cannot pass a line break in an argument")

// A CmdArgError reports an argument that cmd.exe cannot carry literally;
// nothing was run.
type CmdArgError struct {
	Index  int    // position in argv (0 is the program)
	Arg    string // the argument
	Reason string
}

func (e *CmdArgError) Error() string {
	return fmt.Sprintf("winexec: cmd.exe cannot pass argument %d (%q) literally: %s", e.Index, e.Arg, e.Reason)
}

// MaxCmdLine is the longest command cmd.exe accepts after /C, in UTF-16
// code units; a longer one fails with "The command line is too long".
const MaxCmdLine = 8191

// cmdSwitches are the switches CmdCommandLine puts before the command: /d
// skips the AutoRun commands of the registry, /v:off turns delayed
// expansion off whatever the registry says (so "!" is never special), /s
// makes cmd.exe strip exactly the outer quotes around the command.
const cmdSwitches = "/d /v:off /s /c "

// CmdCommandLine returns the arguments for cmd.exe that make it run the
// program argv[0] with argv[1:] exactly, for use as Request.CommandLine with
// Exe "cmd.exe":
//
//	/d /v:off /s /c "<line>"
//
// cmd.exe reads the line in two phases, in this order on Windows: percent
// expansion (%VAR% is replaced when VAR is defined, and left as it is
// otherwise), then carets, quotes and the metacharacters & | < > ( ).
// Wine's cmd.exe does the same two things in the opposite order. The line
// is built so that neither order changes it:
//
//   - argv[1:] are quoted with the MSVCRT rules for the program, but only
//     runs of blanks are put between quotes, and every double quote of
//     that encoding (and every literal one, \") is written ^" so that
//     cmd.exe never enters its quoted state, in which carets are literal;
//   - every other metacharacter, and ^ itself, is preceded by a caret;
//   - every % is followed by a double quote: an empty pair of quotes ^"^"
//     (which the program's MSVCRT parser removes) or the opening quote of
//     a run of blanks. The text between two % signs therefore always
//     starts with a quote, and no environment variable is named that way,
//     in either phase order. A caret would not do: wine removes carets
//     before it expands variables.
//
// argv[0] is the program: it is written as it is, or between plain quotes
// when it holds a blank or a metacharacter (inside quotes cmd.exe takes
// every character literally); it cannot hold % or a double quote.
//
// Refused with a *CmdArgError (or ErrCmdNewline), rather than guessed: a
// line break, NUL or Ctrl-Z anywhere; % or " in argv[0]; a batch file
// (.bat, .cmd) as argv[0], which re-parses %1 as cmd.exe syntax; a line
// longer than MaxCmdLine.
//
// The program must parse its command line with the MSVCRT rules (C and Go
// programs do). cmd.exe builtins do not: for echo, use CmdEscape.
func CmdCommandLine(argv []string) (string, error) {
	line, err := cmdLine(argv)
	if err != nil {
		return "", err
	}
	return cmdSwitches + `"` + line + `"`, nil
}

// cmdLine returns what cmd.exe should run for argv: the part of
// CmdCommandLine between the outer quotes.
func cmdLine(argv []string) (string, error) {
	if len(argv) == 0 {
		return "", errors.New("winexec: CmdCommandLine needs a program")
	}
	for i, a := range argv {
		if err := cmdCheckChars(i, a); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	prog, err := cmdProgram(argv[0])
	if err != nil {
		return "", err
	}
	b.WriteString(prog)
	for _, a := range argv[1:] {
		b.WriteByte(' ')
		cmdArg(&b, a)
	}
	line := b.String()
	if n := utf16Len(line); n > MaxCmdLine {
		return "", fmt.Errorf("winexec: cmd.exe command of %d characters is longer than its limit of %d", n, MaxCmdLine)
	}
	return line, nil
}

// cmdCheckChars refuses what no cmd.exe line can carry: cmd.exe ends the
// command at CR or LF, NUL ends the string, and Ctrl-Z reads as a line end.
func cmdCheckChars(i int, a string) error {
	if strings.ContainsAny(a, "\r\n") {
		return ErrCmdNewline
	}
	if strings.ContainsAny(a, "\x00\x1a") {
		return &CmdArgError{Index: i, Arg: a, Reason: "NUL and Ctrl-Z cannot appear in a cmd.exe line"}
	}
	return nil
}

// cmdProgram writes argv[0]. cmd.exe finds the program with its own
// rules: plain quotes group a name with blanks, and inside them nothing is
// special but % (expanded before quotes are seen) and the quote itself.
func cmdProgram(p string) (string, error) {
	switch {
	case p == "":
		return "", &CmdArgError{Index: 0, Arg: p, Reason: "empty program name"}
	case strings.ContainsAny(p, `%"`):
		return "", &CmdArgError{Index: 0, Arg: p, Reason: "a program name with % or a double quote cannot be passed to cmd.exe"}
	case isBatchName(p):
		return "", &CmdArgError{Index: 0, Arg: p, Reason: "a batch file reads its arguments with cmd.exe's parser (%1 expands into syntax), so no encoding keeps them literal"}
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x80 && !cmdPlainName(c) {
			return `"` + p + `"`, nil
		}
	}
	return p, nil
}

// cmdPlainName reports whether c may appear unquoted in a program name:
// letters, digits and path punctuation that cmd.exe neither treats as a
// metacharacter nor as a token delimiter.
func cmdPlainName(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte(`\/:._-+~#$[]{}'`+"`", c) >= 0
}

// cmdArg writes one argument after the program, encoded for the MSVCRT
// parser and escaped for cmd.exe as CmdCommandLine describes.
func cmdArg(b *strings.Builder, a string) {
	if a == "" {
		b.WriteString(`^"^"`)
		return
	}
	for i := 0; i < len(a); {
		c := a[i]
		switch {
		case c == '\\':
			n := 0
			for i < len(a) && a[i] == '\\' {
				i++
				n++
			}
			// Backslashes count only before a double quote: a literal
			// one (written \" below) or the quote that opens a run of
			// blanks. There they are doubled.
			if i < len(a) && (a[i] == '"' || isBlank(a[i])) {
				n *= 2
			}
			b.WriteString(strings.Repeat(`\`, n))
		case c == '"':
			// Reached only without preceding backslashes.
			b.WriteString(`\^"`)
			i++
		case isBlank(c):
			j := i
			for j < len(a) && isBlank(a[j]) {
				j++
			}
			b.WriteString(`^"`)
			b.WriteString(a[i:j])
			b.WriteString(`^"`)
			i = j
		case c == '%':
			b.WriteByte('%')
			i++
			if i == len(a) || !isBlank(a[i]) {
				// A run of blanks opens with a quote anyway.
				b.WriteString(`^"^"`)
			}
		case strings.IndexByte("&|<>()^", c) >= 0:
			b.WriteByte('^')
			b.WriteByte(c)
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
}

// isBatchName reports whether p names a batch file by its extension, as
// cmd.exe may read the name: without a stream suffix (deploy.bat::$DATA
// runs the file's data, deploy.bat:x a stream of it) and without trailing
// dots, blanks, cmd.exe's delimiters , ; = and control characters, or any
// Unicode blank or zero-width character, which cmd.exe may take for the
// end of the name (whether Windows' does for U+00A0 is not documented).
func isBatchName(p string) bool {
	base := cmdNameBase(p)
	return strings.HasSuffix(base, ".bat") || strings.HasSuffix(base, ".cmd")
}

// cmdNameBase is the file name p's last component names to cmd.exe, lower
// case, without a stream suffix and the trailing characters isBatchName
// lists.
func cmdNameBase(p string) string {
	base := p[strings.LastIndexAny(p, `\/`)+1:]
	if len(base) >= 2 && base[1] == ':' && len(base) == len(p) {
		base = base[2:] // a drive-relative C:deploy.bat
	}
	if i := strings.IndexByte(base, ':'); i >= 0 {
		base = base[:i]
	}
	base = strings.TrimRightFunc(base, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune(".,;=\u200b\u2060\ufeff", r)
	})
	return strings.ToLower(base)
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// CmdEscape escapes cmd.exe metacharacters in s with carets, for callers
// that assemble their own cmd.exe line for a builtin such as echo, whose
// text no MSVCRT parser reads (CmdCommandLine is for programs):
//
//	cmd.exe /d /v:off /s /c "echo <CmdEscape(text)>"
//
// ( ) ! ^ " < > & | get a caret. So does the character after every %, which
// makes every %...% span start with a caret: Windows expands variables
// before it removes carets and no variable is named that way, so %PATH%
// stays literal (a final % stays bare: a caret at the very end would
// escape the line end). Wine removes carets first and does expand such a
// %PATH% (never into syntax: the command is already split), so under wine
// text with two % signs is not literal. The caller must run cmd.exe with
// /v:off, or "!" is expanded after the carets are gone.
func CmdEscape(s string) string {
	var b strings.Builder
	b.Grow(len(s) * 2)
	afterPercent := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case strings.IndexByte(`()!^"<>&|`, c) >= 0, afterPercent:
			b.WriteByte('^')
		}
		b.WriteByte(c)
		afterPercent = c == '%'
	}
	return b.String()
}
