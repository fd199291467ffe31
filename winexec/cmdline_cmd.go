package winexec

import (
	"errors"
	"strings"
)

// ErrCmdNewline is returned by CmdCommandLine for an argument containing a
// line break: cmd.exe ends a command at a line break and there is no escape
// for it.
var ErrCmdNewline = errors.New("winexec: cmd.exe cannot pass a line break in an argument")

// CmdCommandLine returns the arguments for cmd.exe that make it run the
// program argv[0] with argv[1:] exactly, for use as Request.CommandLine with
// Exe "cmd.exe":
//
//	/d /s /c "<line>"
//
// cmd.exe does not parse its command line with the MSVCRT rules, so
// BuildCommandLine alone is not enough. The line is first built with the
// MSVCRT rules for the program cmd.exe will start, then every cmd.exe
// metacharacter ( ) ! ^ " < > & | is escaped with a caret. Escaping the
// quotes too keeps cmd.exe from tracking quote state, so every
// metacharacter, in or out of an argument, is escaped the same way. A
// percent sign becomes "%^": a caret cannot protect it (variables expand
// before carets are removed), but it breaks the variable name, so %PATH%
// stays literal and the caret is removed afterwards (a final "%" stays
// bare: a caret at the end of the line would escape the line end). /d skips AutoRun
// commands from the registry; /s makes cmd.exe strip exactly the outer
// quotes. Delayed expansion (!VAR!) is off by default and the escaping of
// "!" also covers the case where it is on.
//
// Builtins such as dir and echo do not parse with the MSVCRT rules either:
// for them argv[0] is the builtin name and the remaining arguments are best
// passed without quotes, e.g. CmdCommandLine([]string{"echo", "a&b"}).
func CmdCommandLine(argv []string) (string, error) {
	if len(argv) == 0 {
		return "", errors.New("winexec: CmdCommandLine needs a program")
	}
	for _, a := range argv {
		if strings.ContainsAny(a, "\r\n") {
			return "", ErrCmdNewline
		}
	}
	line := BuildCommandLine(argv[0], argv[1:])
	return `/d /s /c "` + CmdEscape(line) + `"`, nil
}

// CmdEscape escapes cmd.exe metacharacters in s as described for
// CmdCommandLine. It is exported for callers that assemble their own cmd.exe
// line, for example with a builtin command.
func CmdEscape(s string) string {
	var b strings.Builder
	b.Grow(len(s) * 2)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '(', ')', '!', '^', '"', '<', '>', '&', '|':
			b.WriteByte('^')
			b.WriteByte(c)
		case '%':
			if i == len(s)-1 {
				// A caret at the very end would escape the end of
				// the line; a final % cannot start a variable anyway.
				b.WriteByte('%')
			} else {
				b.WriteString("%^")
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
