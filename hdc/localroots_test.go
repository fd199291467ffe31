//go:build unix

package hdc

import (
	"os"
	"path/filepath"
	"testing"
)

// TestInsideRoots: what hdc_file_send may send without confirm, judged
// as hdc opens it: links resolved, a directory only when no link under it
// leads outside, roots themselves given through a link.
func TestInsideRoots(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "secret")
	mk := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		t.Helper()
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	mk(filepath.Join(root, "clean", "a.txt"))
	mk(filepath.Join(root, "clean", "sub", "b.txt"))
	mk(filepath.Join(root, "inner", "c.txt"))
	link(filepath.Join(root, "clean", "a.txt"), filepath.Join(root, "inner", "to-a"))
	mk(filepath.Join(outside, "id_rsa"))
	mk(filepath.Join(root, "leaky", "ok.txt"))
	link(outside, filepath.Join(root, "leaky", "deep-out"))
	link(filepath.Join(outside, "id_rsa"), filepath.Join(root, "key"))
	link(filepath.Join(root, "nowhere"), filepath.Join(root, "dangling"))
	link(root, filepath.Join(base, "root-link"))

	ts := &toolset{roots: []string{filepath.Join(base, "root-link")}}
	for p, want := range map[string]bool{
		filepath.Join(root, "clean", "a.txt"):            true,
		filepath.Join(root, "clean"):                     true,
		filepath.Join(root, "inner"):                     true,
		filepath.Join(base, "root-link", "clean", "sub"): true,
		root:                             false, // holds leaky
		filepath.Join(root, "leaky"):     false,
		filepath.Join(root, "key"):       false,
		filepath.Join(root, "dangling"):  false,
		filepath.Join(outside, "id_rsa"): false,
		filepath.Join(root, "clean", "..", "..", "secret"):    false,
		filepath.Join(root, "..", "root-other"):               false,
		`\\wsl.localhost\Other` + filepath.FromSlash(root):    false,
		`\\attacker.example\share` + filepath.FromSlash(root): false,
	} {
		got, ok := ts.insideRoots(p)
		if ok != want {
			t.Errorf("insideRoots(%q) = %q, %v; want %v", p, got, ok, want)
		}
	}
	if got, ok := ts.insideRoots(filepath.Join(base, "root-link", "clean", "a.txt")); !ok || got != filepath.Join(root, "clean", "a.txt") {
		t.Errorf("through a linked root: %q %v, want the resolved path", got, ok)
	}
	if _, ok := (&toolset{}).insideRoots(filepath.Join(root, "clean", "a.txt")); ok {
		t.Error("no roots configured, yet a file was inside")
	}
}
