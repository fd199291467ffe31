package winexec

import (
	"errors"
	"testing"
)

func TestWSLToWin(t *testing.T) {
	m := &PathMapper{Distro: "Ubuntu"}
	tests := []struct{ in, want string }{
		{"/mnt/c", `C:\`},
		{"/mnt/c/", `C:\`},
		{"/mnt/c/Users/me/a b.txt", `C:\Users\me\a b.txt`},
		{"/mnt/d/x/", `D:\x`},
		{"/home/me/src", `\\wsl.localhost\Ubuntu\home\me\src`},
		{"/", `\\wsl.localhost\Ubuntu`},
		{"/mnt", `\\wsl.localhost\Ubuntu\mnt`},
		{"/mnt/cd/x", `\\wsl.localhost\Ubuntu\mnt\cd\x`},
		{"rel/dir", `rel\dir`},
		{`C:\already`, `C:\already`},
		{"", ""},
	}
	for _, tt := range tests {
		got, err := m.WSLToWin(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("WSLToWin(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	custom := &PathMapper{Distro: "D", MountRoot: "/win"}
	if got, _ := custom.WSLToWin("/win/e/x"); got != `E:\x` {
		t.Errorf("custom mount root: %q", got)
	}
}

func TestWSLToWinNeedsDistro(t *testing.T) {
	t.Setenv("WSL_DISTRO_NAME", "")
	if _, err := (&PathMapper{}).WSLToWin("/home"); !errors.Is(err, ErrPathNotMappable) {
		t.Errorf("no distro: err = %v, want ErrPathNotMappable", err)
	}
	t.Setenv("WSL_DISTRO_NAME", "Env")
	if got, err := WSLToWin("/home"); err != nil || got != `\\wsl.localhost\Env\home` {
		t.Errorf("distro from env: %q, %v", got, err)
	}
}

func TestWinToWSL(t *testing.T) {
	m := &PathMapper{Distro: "Ubuntu"}
	tests := []struct{ in, want string }{
		{`C:\`, "/mnt/c"},
		{`C:`, "/mnt/c"},
		{`c:\Users\me\a b.txt`, "/mnt/c/Users/me/a b.txt"},
		{`D:/x/y/`, "/mnt/d/x/y"},
		{`\\?\C:\long\path`, "/mnt/c/long/path"},
		{`\\wsl.localhost\Ubuntu\home\me`, "/home/me"},
		{`\\wsl$\ubuntu\etc\hosts`, "/etc/hosts"},
		{`\\wsl.localhost\Ubuntu`, "/"},
		{`rel\dir`, "rel/dir"},
		{"/already/linux", "/already/linux"},
	}
	for _, tt := range tests {
		got, err := m.WinToWSL(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("WinToWSL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{`\\wsl.localhost\Debian\x`, `\\server\share\x`} {
		if _, err := m.WinToWSL(bad); !errors.Is(err, ErrPathNotMappable) {
			t.Errorf("WinToWSL(%q): err = %v, want ErrPathNotMappable", bad, err)
		}
	}
}

func TestPathRoundTrip(t *testing.T) {
	m := &PathMapper{Distro: "Ubuntu"}
	for _, p := range []string{"/mnt/c/Users/me", "/home/me/x y", "/mnt/z/a/b/c", "/tmp"} {
		w, err := m.WSLToWin(p)
		if err != nil {
			t.Fatal(err)
		}
		back, err := m.WinToWSL(w)
		if err != nil || back != p {
			t.Errorf("%q -> %q -> %q, %v", p, w, back, err)
		}
	}
}

func TestWslpathFallback(t *testing.T) {
	// A stand-in for wslpath proves the fallback is used only for what
	// pure Go cannot map, and that its answer is returned.
	m := &PathMapper{Wslpath: "/bin/echo"}
	got, err := m.WinToWSL(`\\server\share\x`)
	if err != nil || got != `-u \\server\share\x` {
		t.Errorf("fallback: %q, %v", got, err)
	}
}

// TestWinToWSLUnknownDistro: with no distribution name (WSL_DISTRO_NAME is
// missing when a host starts its servers with a clean environment), no
// \\wsl.localhost path can be told to be this distribution's: another's
// /etc/passwd must not read as this one's, inside roots it is not in.
func TestWinToWSLUnknownDistro(t *testing.T) {
	t.Setenv("WSL_DISTRO_NAME", "")
	for _, p := range []string{`\\wsl.localhost\Other\etc\passwd`, `\\wsl$\Other\home\u`, `\\wsl.localhost\Other`} {
		if got, err := WinToWSL(p); !errors.Is(err, ErrPathNotMappable) {
			t.Errorf("WinToWSL(%q) = %q, %v; want ErrPathNotMappable", p, got, err)
		}
	}
	t.Setenv("WSL_DISTRO_NAME", "Mine")
	if got, err := WinToWSL(`\\wsl.localhost\mine\etc\hosts`); err != nil || got != "/etc/hosts" {
		t.Errorf("this distribution's path: %q, %v; want /etc/hosts", got, err)
	}
}
