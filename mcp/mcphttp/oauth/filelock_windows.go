//go:build windows

package oauth

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// openNoFollow opens path, refusing a symbolic link or other reparse
// point there. Windows has no O_NOFOLLOW: the check and the open are two
// steps, and creating a symbolic link there needs a privilege ordinary
// users lack by default.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		return nil, &os.PathError{Op: "open", Path: path, Err: errors.New("is a symbolic link; refusing to follow it")}
	}
	return os.OpenFile(path, flag, perm)
}

// tryLock takes an exclusive lock on f's first byte without waiting;
// false means another handle holds it.
func tryLock(f *os.File) (bool, error) {
	var ol windows.Overlapped
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION), errors.Is(err, windows.ERROR_IO_PENDING):
		return false, nil
	}
	return false, err
}

func unlock(f *os.File) error {
	var ol windows.Overlapped
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}

// syncDir is a no-op: Windows has no directory fsync, and MoveFileEx's
// replace is as durable as it gets there.
func syncDir(string) error { return nil }
