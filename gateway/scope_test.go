package gateway

import (
	"errors"
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
