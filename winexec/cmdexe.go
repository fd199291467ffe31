package winexec

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// ErrCmdArgs is returned (wrapped) for a cmd.exe request whose arguments
// the cmd.exe rule cannot carry; nothing was run.
var ErrCmdArgs = errors.New("winexec: cmd.exe request refused")

// The cmd.exe rule. cmd.exe does not read argv: it takes the text after /C
// (or /K) as a command of its own syntax. A request for cmd.exe therefore
// says which of two things it means:
//
//   - ONE argument after /C is a command in cmd.exe syntax and is passed
//     as it is: ["/C", "dir | findstr x"] pipes, ["/C", "echo a&echo b"]
//     runs two commands.
//   - SEVERAL arguments after /C are literal tokens: the first is the
//     program or builtin, the others reach it unchanged, so
//     ["/C", "echo", "a&b"] prints a&b and nothing else runs (the tokens are
//     encoded with CmdCommandLine; for echo with CmdEscape).
//
// Before /C only the switches /D /Q /S /A /U /E:ON|OFF /F:ON|OFF /V:ON|OFF
// are accepted (/D and /S are always added). This is the device-shell rule
// of hdc_shell applied to cmd.exe.

// isCmdExe reports whether exe names cmd.exe however it is spelled: cmd,
// cmd.exe, any case, any directory in Windows or Linux form, with the
// trailing dots and blanks Windows ignores or a ::$DATA stream suffix.
func isCmdExe(exe string) bool {
	base := exe[strings.LastIndexAny(exe, `\/`)+1:]
	base = strings.ToLower(base)
	base = strings.TrimSuffix(base, "::$data")
	base = strings.TrimRight(base, ". ")
	return base == "cmd" || base == "cmd.exe"
}

// reparsingBuiltins run their arguments through cmd.exe's parser again (or
// start another parser), so literal tokens after them would not stay
// literal.
var reparsingBuiltins = []string{"call", "for", "if", "start", "cmd"}

// cmdWord returns the builtin name cmd.exe would see in a command token:
// its leading letters, lower case (cmd.exe accepts echo. dir/w cd.. and
// so on), after what cmd.exe skips before a command: '@', blanks, its
// other delimiters ',' ';' '=' and control characters such as \v and
// \f, and '('. Any Unicode blank or zero-width character is skipped too:
// wine's cmd.exe takes U+00A0 for part of the name, and whether Windows'
// does is not documented, so ";call" or "\u00a0call" count as call.
func cmdWord(tok string) string {
	tok = cmdSkipLead(tok)
	i := 0
	for i < len(tok) && ('a' <= tok[i]|0x20 && tok[i]|0x20 <= 'z') {
		i++
	}
	return strings.ToLower(tok[:i])
}

// cmdSkipLead drops from tok what cmd.exe may skip before a command word.
func cmdSkipLead(tok string) string {
	return strings.TrimLeftFunc(tok, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune(",;=@(\u200b\u2060\ufeff", r)
	})
}

// applyCmdRule rewrites a request for cmd.exe into Request.CommandLine as
// the cmd.exe rule says. Requests for other programs, or with a
// CommandLine already, are left alone.
func applyCmdRule(req *Request) error {
	if req.CommandLine != "" || !isCmdExe(req.Exe) {
		return nil
	}
	line, err := cmdExeLine(req.Args)
	if err != nil {
		return err
	}
	if line != "" {
		req.CommandLine, req.Args = line, nil
	}
	return nil
}

// cmdExeLine returns the command line for cmd.exe arguments args, or ""
// when args hold no /C or /K (cmd.exe then reads commands from stdin).
func cmdExeLine(args []string) (string, error) {
	var switches []string
	delayed := false
	for i, a := range args {
		sw := strings.ToLower(a)
		switch sw {
		case "/c", "/k":
			return cmdExeCommand(switches, delayed, sw, args[i+1:])
		case "/d", "/s":
			// Always added.
		case "/q", "/a", "/u", "/e:on", "/e:off", "/f:on", "/f:off", "/v:off":
			switches = append(switches, sw)
		case "/v:on":
			switches = append(switches, sw)
			delayed = true
		default:
			return "", fmt.Errorf("%w: %q before /C or /K: only the switches /D /Q /S /A /U /E:ON|OFF /F:ON|OFF /V:ON|OFF may come first, and the command follows /C", ErrCmdArgs, a)
		}
	}
	return "", nil
}

func cmdExeCommand(switches []string, delayed bool, mode string, rest []string) (string, error) {
	prefix := "/d "
	if len(switches) > 0 {
		prefix += strings.Join(switches, " ") + " "
	}
	switch len(rest) {
	case 0:
		return prefix + mode, nil
	case 1:
		// cmd.exe syntax, passed as it is. /s strips exactly the outer
		// quotes, so the command may itself start and end with quotes.
		s := rest[0]
		if strings.ContainsAny(s, "\r\n") {
			return "", fmt.Errorf("%w: %w", ErrCmdArgs, ErrCmdNewline)
		}
		if n := utf16Len(s); n > MaxCmdLine {
			return "", fmt.Errorf("%w: command of %d characters is longer than cmd.exe's limit of %d", ErrCmdArgs, n, MaxCmdLine)
		}
		if s != "" && QuoteArg(s) == s {
			// Written without quotes, the command line is also what an
			// MSVCRT quoter (wine, WSL interop) makes of these
			// arguments, so the direct backend can pass it.
			return prefix + "/s " + mode + " " + s, nil
		}
		return prefix + "/s " + mode + ` "` + s + `"`, nil
	}
	if delayed {
		return "", fmt.Errorf("%w: /V:ON with several arguments after %s: delayed expansion would expand !VAR! inside the literal tokens; pass the whole command as one argument instead", ErrCmdArgs, strings.ToUpper(mode))
	}
	word := cmdWord(rest[0])
	for _, b := range reparsingBuiltins {
		if word == b {
			return "", fmt.Errorf("%w: %q parses its arguments as commands again, so they cannot stay literal tokens; pass the whole command as one argument after %s", ErrCmdArgs, rest[0], strings.ToUpper(mode))
		}
	}
	if b := cmdNameBase(cmdSkipLead(rest[0])); isCmdExe(rest[0]) || b == "cmd" || b == "cmd.exe" {
		return "", fmt.Errorf("%w: a nested cmd.exe parses its arguments as commands again; pass the whole command as one argument after %s", ErrCmdArgs, strings.ToUpper(mode))
	}
	var line string
	if strings.EqualFold(rest[0], "echo") {
		// echo prints the rest of its line as it is: MSVCRT quotes would
		// show. Only carets are added.
		for i, t := range rest {
			if err := cmdCheckChars(i, t); err != nil {
				return "", fmt.Errorf("%w: %w", ErrCmdArgs, err)
			}
		}
		line = rest[0] + " " + CmdEscape(strings.Join(rest[1:], " "))
		if n := utf16Len(line); n > MaxCmdLine {
			return "", fmt.Errorf("%w: command of %d characters is longer than cmd.exe's limit of %d", ErrCmdArgs, n, MaxCmdLine)
		}
	} else {
		var err error
		if line, err = cmdLine(rest); err != nil {
			return "", fmt.Errorf("%w: %w", ErrCmdArgs, err)
		}
	}
	return prefix + "/v:off /s " + mode + ` "` + line + `"`, nil
}
