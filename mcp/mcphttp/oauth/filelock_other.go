//go:build !unix && !windows

package oauth

import "os"

// Without file locks (wasm, plan9), the store is safe within one process
// only.

func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}

func tryLock(*os.File) (bool, error) { return true, nil }

func unlock(*os.File) error { return nil }

func syncDir(string) error { return nil }
