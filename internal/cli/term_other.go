//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly && !windows

package cli

import "os"

// IsTerminal reports false where terminals cannot be told apart.
func IsTerminal(f *os.File) bool { return false }
