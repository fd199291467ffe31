package hdc

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/winbridge/winbridge/winexec"
)

// maxRootWalk bounds the entries of a directory judged for sending
// without confirm; a larger one needs confirm.
const maxRootWalk = 10000

// errOutsideRoots ends the walk of a directory with an entry that leads
// outside the roots.
var errOutsideRoots = errors.New("outside the local roots")

// insideRoots returns the file local names as hdc would open it, with
// every symbolic link resolved on the Linux side, and whether it lies
// inside one of the configured local roots: such a file may be sent to a
// device without confirm. A directory counts only when no link under it
// leads outside and it holds at most maxRootWalk entries. Only Linux paths
// and Windows drive paths (read as /mnt/X/...) are judged; a share path
// (\\wsl.localhost\Distro\..., which may name another distribution) or
// anything that does not resolve is outside. The caller sends the
// returned path, not local, so that hdc opens what was judged.
func (t *toolset) insideRoots(local string) (string, bool) {
	if len(t.roots) == 0 {
		return "", false
	}
	p, ok := linuxSide(local)
	if !ok {
		return "", false
	}
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false
	}
	var roots []string
	for _, r := range t.roots {
		if rp, ok := linuxSide(r); ok {
			if rr, err := filepath.EvalSymlinks(rp); err == nil {
				roots = append(roots, rr)
			}
		}
	}
	in := func(p string) bool {
		for _, r := range roots {
			if p == r || strings.HasPrefix(p, strings.TrimSuffix(r, "/")+"/") {
				return true
			}
		}
		return false
	}
	if !in(resolved) {
		return "", false
	}
	n := 0
	err = filepath.WalkDir(resolved, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if n++; n > maxRootWalk {
			return errOutsideRoots
		}
		if d.Type()&fs.ModeSymlink != 0 {
			// hdc follows links as it copies a directory.
			target, err := filepath.EvalSymlinks(p)
			if err != nil || !in(target) {
				return errOutsideRoots
			}
		}
		return nil
	})
	if err != nil {
		return "", false
	}
	return resolved, true
}

// linuxSide is the absolute Linux path of a local path: a Linux path made
// absolute against this process's directory, or a Windows drive path in
// its /mnt/X form; ok is false for anything else.
func linuxSide(p string) (string, bool) {
	if !winexec.IsWindowsPath(p) {
		abs, err := filepath.Abs(p)
		return abs, err == nil
	}
	if checkWindowsLocal(p) != nil || !isASCIILetter(p[0]) || p[1] != ':' {
		return "", false
	}
	lp, err := winexec.WinToWSL(p)
	return lp, err == nil
}
