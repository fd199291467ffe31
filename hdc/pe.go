package hdc

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
)

// isPEFile reports whether exe, found as this process finds it (a path,
// or a name on PATH), is a Windows program: a PE file starts with "MZ".
// Under WSL the direct and local backends run such a file through
// interop whatever its name (a link /home/u/bin/hdc to hdc.exe), and it
// then reads its command line through the ANSI code page and opens
// network shares like hdc.exe. The file is read once, when the tools are
// made: HDC_EXE is the operator's.
func isPEFile(exe string) bool {
	p := exe
	if !strings.Contains(p, "/") {
		lp, err := exec.LookPath(p)
		if err != nil && !errors.Is(err, exec.ErrDot) || lp == "" {
			return false
		}
		p = lp
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [2]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return false
	}
	return magic == [2]byte{'M', 'Z'}
}
