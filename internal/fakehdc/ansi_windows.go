//go:build windows

package fakehdc

import (
	"strings"
	"syscall"
	"unicode/utf16"
	"unsafe"
)

var (
	kernel32                = syscall.NewLazyDLL("kernel32.dll")
	procWideCharToMultiByte = kernel32.NewProc("WideCharToMultiByte")
	procMultiByteToWideChar = kernel32.NewProc("MultiByteToWideChar")
)

const cpACP = 0

// ansiArgs passes each argument through the ANSI code page and back, as
// hdc.exe's C runtime (main's char **argv, from GetCommandLineA) and its
// UnicodeToUtf8 do: characters outside the code page become '?'.
func ansiArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = throughACP(a)
	}
	return out
}

func throughACP(s string) string {
	if s == "" {
		return s
	}
	w := utf16.Encode([]rune(s))
	n, _, _ := procWideCharToMultiByte.Call(cpACP, 0, uintptr(unsafe.Pointer(&w[0])), uintptr(len(w)), 0, 0, 0, 0)
	if n == 0 {
		return s
	}
	mb := make([]byte, n)
	procWideCharToMultiByte.Call(cpACP, 0, uintptr(unsafe.Pointer(&w[0])), uintptr(len(w)), uintptr(unsafe.Pointer(&mb[0])), n, 0, 0)
	m, _, _ := procMultiByteToWideChar.Call(cpACP, 0, uintptr(unsafe.Pointer(&mb[0])), n, 0, 0)
	if m == 0 {
		return s
	}
	back := make([]uint16, m)
	procMultiByteToWideChar.Call(cpACP, 0, uintptr(unsafe.Pointer(&mb[0])), n, uintptr(unsafe.Pointer(&back[0])), m)
	return string(utf16.Decode(back))
}

// hostPath maps a Linux path to its wine name (drive Z: is the Linux
// root); other paths are returned unchanged.
func hostPath(p string) string {
	if strings.HasPrefix(p, "/") {
		return `Z:` + strings.ReplaceAll(p, "/", `\`)
	}
	return p
}
