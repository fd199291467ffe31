package gateway

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/winexec"
)

// FuzzScope: whatever path a model sends, one the scope accepts is, read
// lexically in every form a program could read it, inside the root (the
// tree has no symbolic links, so lexical and real resolution agree).
func FuzzScope(f *testing.F) {
	for _, s := range []string{"/r/a", `C:\work\..\x`, "/r/../r/a", `\\?\C:\work`, `\\wsl.localhost\U\r\a`, "/r/a\\..\\..", "r/a", "/mnt/c/work/../..", "", "/r/\x00"} {
		f.Add(s)
	}
	dir := f.TempDir()
	mount := filepath.Join(dir, "mnt") + "/"
	root := filepath.Join(dir, "mnt", "c", "work")
	m := &winexec.PathMapper{MountRoot: mount, Distro: "U"}
	sc, err := newScope([]string{`C:\work`}, m)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, p string) {
		p = strings.ReplaceAll(p, "/r/", root+"/")
		err := sc.check(p)
		if err != nil {
			if !errors.Is(err, errOutside) && !errors.Is(err, errBadPath) {
				t.Fatalf("%q: an error of no class: %v", p, err)
			}
			return
		}
		readings := []string{}
		if winexec.IsWindowsPath(p) {
			l, err := m.WinToWSL(p)
			if err != nil {
				t.Fatalf("%q accepted but not mappable: %v", p, err)
			}
			readings = append(readings, l)
		}
		if strings.HasPrefix(p, "/") {
			readings = append(readings, p)
		}
		for _, r := range readings {
			c := path.Clean(r)
			if !within(root, c, true) {
				t.Fatalf("%q accepted, but %q reads as %q, outside %q", p, r, c, root)
			}
		}
	})
}

// TestScopeLexicalReading: many programs resolve ".." lexically before
// the kernel sees the path (every Windows program, through the Win32 path
// normalization; Node's path.resolve, Python's os.path.abspath, Go's
// filepath.Clean in servers that tidy a path first). A path that is inside
// only in the kernel's reading must be refused: "root/link/../../../x",
// with a link two levels down, is root/x to the kernel and ../x lexically.
// And ".." that climbs back out of a missing name must not stop links
// after it from being followed.
func TestScopeLexicalReading(t *testing.T) {
	dir := t.TempDir()
	mount := filepath.Join(dir, "mnt") + "/"
	root := filepath.Join(dir, "mnt", "c", "work")
	deep := filepath.Join(root, "a", "b", "c")
	out := filepath.Join(dir, "mnt", "c", "secret")
	for _, d := range []string{deep, out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(deep, filepath.Join(root, "l")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	sc, err := newScope([]string{`C:\work`}, &winexec.PathMapper{MountRoot: mount, Distro: "U"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		root + "/l/../../../secret/x", // the kernel: root/secret/x; lexically: mnt/c/secret/x
		`C:\work\l\..\..\..\secret\x`, // a Windows program always reads it lexically
		root + "/nowhere/../out/x",    // past a missing name, ".." comes back to a link
		`C:\work\nowhere\..\out\x`,
	} {
		if err := sc.check(p); !errors.Is(err, errOutside) {
			t.Errorf("%q: got %v, want outside the roots", p, err)
		}
	}
	for _, p := range []string{root + "/l/x", root + "/l/../x", root + "/a/b/../b/c/x", `C:\work\l\new.txt`} {
		if err := sc.check(p); err != nil {
			t.Errorf("%q: %v", p, err)
		}
	}
}

// TestScopeFoldLookalikes: Windows compares names by upper-casing each
// character, so "work" and "wor\u212a" (KELVIN SIGN) are two names, while
// Unicode case folding calls them equal. The root's look-alike beside it
// is outside the root.
func TestScopeFoldLookalikes(t *testing.T) {
	dir := t.TempDir()
	mount := filepath.Join(dir, "mnt") + "/"
	if err := os.MkdirAll(filepath.Join(dir, "mnt", "c", "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	sc, err := newScope([]string{`C:\work`}, &winexec.PathMapper{MountRoot: mount, Distro: "U"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"C:\\wor\u212a", "C:\\WOR\u212a", `C:\Work`} {
		err := sc.check(p)
		if want := p == `C:\Work`; (err == nil) != want {
			t.Errorf("%q: %v", p, err)
		}
	}
}
