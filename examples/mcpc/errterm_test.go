//go:build unix

package main

import (
	"strings"
	"testing"
)

// An error is printed with the server's text in it escaped: the stderr of
// a server that exits, a server's error message. Before, mcpc escaped
// progress messages and stderr lines (-v), but printed its errors as they
// were, so a server that wrote an escape sequence to stderr and exited
// drove the user's terminal (here: set the window title, clear the
// screen) through the error that quoted its stderr. Line breaks are kept.
func TestErrorsDoNotDriveTheTerminal(t *testing.T) {
	script := `printf 'starting\n\033]0;owned\007\033[2J\342\200\256txt.exe\n' >&2; exit 3`
	code, _, errs := mcpc(t, "--timeout", "30s", "tools", "--", "sh", "-c", script)
	if code != exitFailure {
		t.Fatalf("status %d: %s", code, errs)
	}
	if strings.ContainsAny(errs, "\x1b\x07\u202e") {
		t.Errorf("the error drives the terminal: %q", errs)
	}
	if !strings.Contains(errs, `\x1b]0;owned\a`) || !strings.Contains(errs, "starting\n") {
		t.Errorf("the server's stderr, escaped, line by line, is missing from %q", errs)
	}
}
