//go:build !windows

package fakehdc

// ansiArgs returns args unchanged: a native hdc receives its arguments as
// bytes.
func ansiArgs(args []string) []string { return args }

// hostPath returns p unchanged: native paths are the host's.
func hostPath(p string) string { return p }
