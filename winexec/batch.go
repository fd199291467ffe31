package winexec

import (
	"errors"
	"fmt"
	"strings"
)

// ErrBatchArg is returned (wrapped, with the argument) for an argument of
// a .bat or .cmd program that cmd.exe would read as more than text.
var ErrBatchArg = errors.New("winexec: argument not allowed for a batch file")

// isBatch reports whether Windows runs the program file through cmd.exe:
// CreateProcess decides by the extension of the name it was given (a name
// without an extension gets ".exe"), and an 8.3 alias keeps the
// extension, so the name is enough.
func isBatch(exe string) bool {
	i := strings.LastIndexAny(exe, `\/.`)
	if i < 0 || exe[i] != '.' {
		return false
	}
	ext := asciiLower(exe[i:])
	return ext == ".bat" || ext == ".cmd"
}

// checkBatchArgs refuses, for a batch file, arguments that would escape
// the command line BuildCommandLine writes. Windows starts a batch file as
// cmd.exe /c with the whole command line, and cmd.exe knows neither the
// MSVCRT backslash escapes nor any escape inside quotes: an argument
// `a" & calc & "` ends the quotes and runs calc (the "BatBadBut" class).
// Arguments are therefore held to text cmd.exe takes literally: no double
// quote (the only way to change quoting), none of % and ! (expanded even
// inside quotes), none of ^ & | < > ( ) (operators and blocks, also when
// the script expands %1 unquoted), and no control character. Quoting by
// BuildCommandLine then leaves every argument one quoted or plain word.
// Spaces, commas, semicolons and "=" stay allowed: cmd.exe splits %1..%9
// on them when the argument is not quoted, which changes no command.
func checkBatchArgs(exe string, args []string) error {
	if !isBatch(exe) {
		return nil
	}
	for _, a := range args {
		if r, ok := batchSyntax(a); ok {
			return fmt.Errorf("%w %q: %q has a meaning to cmd.exe, which runs %s", ErrBatchArg, a, r, exe)
		}
	}
	return nil
}

// checkBatchEnv refuses, for a batch file, values of the request's
// variables that are more than text to cmd.exe. A script reads them as
// %NAME%, which cmd.exe expands before it parses the line: a value is
// syntax there as an argument is (V="x & calc" runs calc from
// `echo %V%`). They are held to the text checkBatchArgs allows.
func checkBatchEnv(exe string, env map[string]string) error {
	if !isBatch(exe) {
		return nil
	}
	for k, v := range env {
		if r, ok := batchSyntax(v); ok {
			return fmt.Errorf("%w: the value of %s: %q has a meaning to cmd.exe, which runs %s and expands %%%s%% into its lines", ErrBatchArg, k, r, exe, k)
		}
	}
	return nil
}

// batchSyntax returns the first character of s that cmd.exe would read
// as more than text, if any.
func batchSyntax(s string) (rune, bool) {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`"%!^&|<>()`, r) {
			return r, true
		}
	}
	return 0, false
}
