package winexec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ErrPathNotMappable is returned when a path has no equivalent on the other
// side, such as a Linux path while the WSL distribution name is unknown, or
// a network share.
var ErrPathNotMappable = errors.New("winexec: path cannot be translated")

// PathMapper translates between Linux (WSL) and Windows paths with the
// semantics of wslpath. The zero value uses the distribution named by
// WSL_DISTRO_NAME and drives mounted under /mnt/.
type PathMapper struct {
	// Distro is the WSL distribution name used for \\wsl.localhost\<distro>
	// paths. Empty means $WSL_DISTRO_NAME.
	Distro string

	// MountRoot is where Windows drives are mounted (automount root in
	// /etc/wsl.conf). Empty means "/mnt/".
	MountRoot string

	// Wslpath, when not empty, is the wslpath program run for paths pure
	// Go cannot translate (a custom mount of a network share, say).
	Wslpath string
}

func (m *PathMapper) distro() string {
	if m != nil && m.Distro != "" {
		return m.Distro
	}
	return os.Getenv("WSL_DISTRO_NAME")
}

func (m *PathMapper) mountRoot() string {
	r := "/mnt/"
	if m != nil && m.MountRoot != "" {
		r = m.MountRoot
	}
	if !strings.HasSuffix(r, "/") {
		r += "/"
	}
	return r
}

// WSLToWin translates a Linux path to Windows form with the default
// PathMapper: /mnt/c/x -> C:\x, /home/u -> \\wsl.localhost\<distro>\home\u.
func WSLToWin(p string) (string, error) { return (*PathMapper)(nil).WSLToWin(p) }

// WinToWSL translates a Windows path to Linux form with the default
// PathMapper: C:\x -> /mnt/c/x, \\wsl.localhost\<distro>\x -> /x.
func WinToWSL(p string) (string, error) { return (*PathMapper)(nil).WinToWSL(p) }

// IsWindowsPath reports whether p is written in Windows form: a drive path
// (C:\, C:/ or C:), a UNC path or one with a backslash separator.
func IsWindowsPath(p string) bool {
	return isDrivePath(p) || strings.HasPrefix(p, `\\`) || strings.Contains(p, `\`)
}

func isDrivePath(p string) bool {
	return len(p) >= 2 && p[1] == ':' && isLetter(p[0]) && (len(p) == 2 || p[2] == '\\' || p[2] == '/')
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// WSLToWin translates a Linux path to Windows form. A path already in
// Windows form is returned unchanged; a relative path only has its
// separators turned.
func (m *PathMapper) WSLToWin(p string) (string, error) {
	if p == "" || IsWindowsPath(p) {
		return p, nil
	}
	if !strings.HasPrefix(p, "/") {
		return strings.ReplaceAll(p, "/", `\`), nil
	}
	root := m.mountRoot()
	if rest, ok := strings.CutPrefix(p+"/", root); ok && len(rest) >= 2 && isLetter(rest[0]) && rest[1] == '/' {
		tail := strings.Trim(rest[2:], "/")
		return strings.ToUpper(rest[:1]) + `:\` + strings.ReplaceAll(tail, "/", `\`), nil
	}
	d := m.distro()
	if d == "" {
		if w, err := m.runWslpath("-w", p); err == nil {
			return w, nil
		}
		return "", fmt.Errorf("%w: %q needs the WSL distribution name (WSL_DISTRO_NAME is empty)", ErrPathNotMappable, p)
	}
	return `\\wsl.localhost\` + d + strings.ReplaceAll(strings.TrimSuffix(p, "/"), "/", `\`), nil
}

// WinToWSL translates a Windows path to Linux form. A path already in Linux
// form is returned unchanged. \\wsl.localhost\ and \\wsl$\ paths of the
// current distribution (Distro, or WSL_DISTRO_NAME) map to the Linux root;
// those of another distribution, those of any when the current one's name
// is unknown, and other UNC paths are not mappable without wslpath.
func (m *PathMapper) WinToWSL(p string) (string, error) {
	if p == "" || !IsWindowsPath(p) {
		return p, nil
	}
	q := strings.ReplaceAll(p, "/", `\`)
	q = strings.TrimPrefix(q, `\\?\`)
	if isDrivePath(q) {
		rest := strings.Trim(q[2:], `\`)
		out := m.mountRoot() + strings.ToLower(q[:1])
		if rest != "" {
			out += "/" + strings.ReplaceAll(rest, `\`, "/")
		}
		return out, nil
	}
	if strings.HasPrefix(q, `\\`) {
		parts := strings.SplitN(q[2:], `\`, 3)
		host := strings.ToLower(parts[0])
		if (host == "wsl.localhost" || host == "wsl$") && len(parts) >= 2 {
			// Only this distribution's own paths are its root. With no
			// name to compare (WSL_DISTRO_NAME is missing when a host
			// starts servers with a clean environment), another
			// distribution's \\wsl.localhost\Other\etc\passwd would
			// read as this one's /etc/passwd, inside roots it is not in.
			if d := m.distro(); d != "" && strings.EqualFold(d, parts[1]) {
				rest := ""
				if len(parts) == 3 {
					rest = strings.Trim(parts[2], `\`)
				}
				return "/" + strings.ReplaceAll(rest, `\`, "/"), nil
			}
		}
		if l, err := m.runWslpath("-u", p); err == nil {
			return l, nil
		}
		return "", fmt.Errorf("%w: %q", ErrPathNotMappable, p)
	}
	return strings.ReplaceAll(q, `\`, "/"), nil
}

func (m *PathMapper) runWslpath(flag, p string) (string, error) {
	if m == nil || m.Wslpath == "" {
		return "", ErrPathNotMappable
	}
	out, err := exec.CommandContext(context.Background(), m.Wslpath, flag, p).Output()
	if err != nil {
		return "", fmt.Errorf("winexec: wslpath %s %q: %w", flag, p, err)
	}
	return string(bytes.TrimRight(out, "\r\n")), nil
}
