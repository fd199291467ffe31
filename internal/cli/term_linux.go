package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// IsTerminal reports whether f is a terminal (not merely a character
// device: /dev/null is one too).
func IsTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
