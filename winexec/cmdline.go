package winexec

import (
	"strings"
)

// QuoteArg quotes one argument so that the MSVCRT startup code and
// CommandLineToArgvW hand it back unchanged: it is quoted when empty or when
// it contains a space, tab, newline, vertical tab or double quote; inside
// quotes 2N+1 backslashes precede a literal quote and trailing backslashes
// are doubled. Other backslashes are left alone, because Windows paths are
// full of them and the parsers only count backslashes before a quote.
func QuoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\v\"") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; ; i++ {
		n := 0
		for i < len(s) && s[i] == '\\' {
			i++
			n++
		}
		switch {
		case i == len(s):
			b.WriteString(strings.Repeat(`\`, 2*n))
			b.WriteByte('"')
			return b.String()
		case s[i] == '"':
			b.WriteString(strings.Repeat(`\`, 2*n+1))
			b.WriteByte('"')
		default:
			b.WriteString(strings.Repeat(`\`, n))
			b.WriteByte(s[i])
		}
	}
}

// quoteProgram quotes argv[0], which the parsers read with simpler rules:
// quotes toggle and backslashes are literal, so a program name can be
// quoted but can never contain a double quote.
func quoteProgram(exe string) string {
	if exe != "" && !strings.ContainsAny(exe, " \t") {
		return exe
	}
	return `"` + exe + `"`
}

// JoinArgs builds the argument part of a Windows command line (what .NET
// calls ProcessStartInfo.Arguments) from args with QuoteArg.
func JoinArgs(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(QuoteArg(a))
	}
	return b.String()
}

// BuildCommandLine returns the full Windows command line that makes a
// program using the MSVCRT/CommandLineToArgvW rules see exactly
// argv = exe, args... . NUL cannot appear in a Windows command line; the
// Executor refuses such arguments with ErrNUL. A double quote in exe cannot
// be represented either and is dropped.
func BuildCommandLine(exe string, args []string) string {
	exe = strings.ReplaceAll(exe, `"`, "")
	if len(args) == 0 {
		return quoteProgram(exe)
	}
	return quoteProgram(exe) + " " + JoinArgs(args)
}

// SplitCommandLine parses a Windows command line the way CommandLineToArgvW
// and the Microsoft C runtime (2008 and later) do: argv[0] is read with quote
// toggling only; later arguments are separated by spaces and tabs, 2N
// backslashes before a quote become N and the quote toggles quoting, 2N+1
// become N and a literal quote, and "" inside quotes is a literal quote.
// It is the reference that the builders are tested against.
func SplitCommandLine(s string) []string {
	var argv []string
	var cur []byte
	i := 0
	// argv[0]
	inQuote := false
	for i < len(s) {
		c := s[i]
		if c == '"' {
			inQuote = !inQuote
			i++
			continue
		}
		if !inQuote && (c == ' ' || c == '\t') {
			break
		}
		cur = append(cur, c)
		i++
	}
	argv = append(argv, string(cur))
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			return argv
		}
		cur = cur[:0]
		inQuote = false
		for i < len(s) {
			c := s[i]
			if !inQuote && (c == ' ' || c == '\t') {
				break
			}
			switch c {
			case '\\':
				n := 0
				for i < len(s) && s[i] == '\\' {
					i++
					n++
				}
				if i < len(s) && s[i] == '"' {
					cur = append(cur, strings.Repeat(`\`, n/2)...)
					if n%2 == 1 {
						cur = append(cur, '"')
						i++
					}
				} else {
					cur = append(cur, strings.Repeat(`\`, n)...)
				}
			case '"':
				if inQuote && i+1 < len(s) && s[i+1] == '"' {
					cur = append(cur, '"')
					i += 2
					continue
				}
				inQuote = !inQuote
				i++
			default:
				cur = append(cur, c)
				i++
			}
		}
		argv = append(argv, string(cur))
	}
}
