package proctest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Gone reports whether pid no longer runs: it does not exist, or it is a
// zombie waiting for a parent to reap it (init in a container may not).
func Gone(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return os.IsNotExist(err)
	}
	// The state follows the parenthesised command name, which may itself
	// hold a parenthesis.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z' || s[i+2] == 'X'
	}
	return false
}
