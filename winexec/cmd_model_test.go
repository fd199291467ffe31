package winexec

import (
	"errors"
	"fmt"
	"strings"
)

// A model of how cmd.exe reads the command after "/s /c", used to check
// CmdCommandLine without Windows: percent expansion and the syntax phase
// (carets, quotes, metacharacters), in Windows' order or in wine's
// (syntax first). The environment is hostile: a variable is defined
// unless the caller's rule says no name can look like that.

// expandedMark stands for the value of an expanded variable.
const expandedMark = "\x01EXPANDED\x01"

// errLive reports a metacharacter the syntax phase would act on.
var errLive = errors.New("live metacharacter")

// cmdModel returns the text cmd.exe hands to the program for the command
// line tail (what follows "cmd.exe "), or an error when a command
// separator, redirection or block is live.
func cmdModel(tail string, wineOrder bool, defined func(base string) bool) (string, error) {
	cmd, ok := strings.CutPrefix(tail, cmdSwitches)
	if !ok {
		return "", fmt.Errorf("tail %q does not start with %q", tail, cmdSwitches)
	}
	// /s: strip the first quote and the last one.
	if !strings.HasPrefix(cmd, `"`) || !strings.HasSuffix(cmd, `"`) || len(cmd) < 2 {
		return "", fmt.Errorf("command %q not quoted", cmd)
	}
	cmd = cmd[1 : len(cmd)-1]
	if wineOrder {
		s, err := cmdSyntaxPhase(cmd)
		if err != nil {
			return "", err
		}
		return cmdPercentPhase(s, defined), nil
	}
	return cmdSyntaxPhase(cmdPercentPhase(cmd, defined))
}

// cmdPercentPhase expands %NAME% in command-line mode: a defined name is
// replaced; an undefined one is kept, and the scan resumes at its closing
// %, which may open the next name.
func cmdPercentPhase(s string, defined func(base string) bool) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '%')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		j := strings.IndexByte(s[i+1:], '%')
		if j < 0 {
			b.WriteString(s[i:])
			return b.String()
		}
		name := s[i+1 : i+1+j]
		base, _, _ := strings.Cut(name, ":")
		if base != "" && defined(base) {
			b.WriteString(expandedMark)
			s = s[i+1+j+1:]
			continue
		}
		b.WriteString(s[i : i+1+j])
		s = s[i+1+j:]
	}
}

// definedUnlessQuoted: no variable name holds a double quote (the claim
// CmdCommandLine rests on).
func definedUnlessQuoted(base string) bool { return !strings.Contains(base, `"`) }

// definedUnlessCaret: no variable name starts with a caret or holds a
// double quote (the claim CmdEscape rests on, on Windows).
func definedUnlessCaret(base string) bool {
	return definedUnlessQuoted(base) && !strings.HasPrefix(base, "^")
}

// cmdSyntaxPhase removes carets outside quotes, toggles the quote state on
// unescaped quotes, and fails on a live & | < > ( ).
func cmdSyntaxPhase(s string) (string, error) {
	var b strings.Builder
	inQuote := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inQuote {
			if c == '"' {
				inQuote = false
			}
			b.WriteByte(c)
			continue
		}
		switch c {
		case '"':
			inQuote = true
			b.WriteByte(c)
		case '^':
			if i+1 == len(s) {
				return "", fmt.Errorf("%w: caret at the end escapes the line end", errLive)
			}
			i++
			b.WriteByte(s[i])
		case '&', '|', '<', '>', '(', ')':
			return "", fmt.Errorf("%w: %q at %d of %q", errLive, c, i, s)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
