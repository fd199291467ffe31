package wintest

import (
	"os"
	"path/filepath"
	"sync"
)

// The build outputs and the WINEPREFIX live in one directory per test
// binary run, so every test shares them; Cleanup removes it.
var (
	workOnce sync.Once
	workPath string
	workErr  error
)

// WorkDir returns the per-run directory. Its base name is unique, so
// processes started from it can be recognised by their command lines (see
// Processes).
func WorkDir() (string, error) {
	workOnce.Do(func() {
		workPath, workErr = os.MkdirTemp("", "wintest-")
		if workErr == nil {
			workPath, workErr = filepath.EvalSymlinks(workPath)
		}
	})
	return workPath, workErr
}

// RunToken returns the base name of the per-run directory, which appears
// in the command line of every program built by this run, or "" when no
// program was built. Leak checks use it so that other test runs on the
// same machine do not count.
func RunToken() string {
	if workPath == "" {
		return ""
	}
	return filepath.Base(workPath)
}

// Cleanup stops the wine server of the private prefix and removes the
// per-run directory. Call it from TestMain after m.Run.
func Cleanup() {
	shutdownWine()
	if workPath != "" {
		os.RemoveAll(workPath)
	}
}
