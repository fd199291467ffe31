//go:build unix

package hdc_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/hdc"
)

// testHostRead: hdc_file_send read any file of this machine (a private
// key, a token file) onto the device without confirm, where hdc_shell
// (which needs none) reads it back to the model. Sending now needs
// confirm: true unless the file, as hdc would open it (symbolic links
// resolved), lies inside Options.LocalRoots; a directory only when
// nothing under it leads outside. hdc_run's file send always needs it:
// it passes paths as given, relative to hdc's own directory or -cwd.
func testHostRead(t *testing.T, v variant) {
	root := t.TempDir()
	f := newFixtureWith(t, v, oneTarget(), func(o *hdc.Options) { o.LocalRoots = []string{root} })
	secret := filepath.Join(t.TempDir(), "id_rsa")
	writeFile(t, secret, "PRIVATE KEY\n")
	inside := filepath.Join(root, "app", "data.bin")
	writeFile(t, inside, "data\n")
	link := filepath.Join(root, "app", "link")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	leaky := filepath.Join(root, "leaky")
	writeFile(t, filepath.Join(leaky, "ok.txt"), "ok\n")
	if err := os.Symlink(filepath.Dir(secret), filepath.Join(leaky, "out")); err != nil {
		t.Fatal(err)
	}
	dev := f.device("FAKE0001")
	onDevice := func(remote string) bool {
		_, err := os.Stat(filepath.Join(dev, remote))
		return err == nil
	}
	for i, local := range []string{secret, link, leaky, filepath.Join(root, "..", filepath.Base(filepath.Dir(secret)), "id_rsa"), root + "/app/../../" + filepath.Base(filepath.Dir(secret)) + "/id_rsa"} {
		remote := "data/local/tmp/r" + string(rune('0'+i))
		res, _ := f.call(t, hdc.ToolFileSend, map[string]any{"local": local, "remote": "/" + remote})
		if !res.IsError || !strings.Contains(res.TextOf(), "confirm") || onDevice(remote) {
			t.Errorf("hdc_file_send %s without confirm: isError %v %q", local, res.IsError, res.TextOf())
		}
	}
	runLocal := secret
	if f.wine {
		runLocal, _ = winePath(secret)
	}
	for _, args := range [][]string{
		{"file", "send", runLocal, "/data/local/tmp/s0"},
		{"-t", "FAKE0001", "file send", runLocal, "/data/local/tmp/s0"},
	} {
		res, _ := f.call(t, hdc.ToolRun, map[string]any{"args": args})
		if !res.IsError || !strings.Contains(res.TextOf(), "confirm") || onDevice("data/local/tmp/s0") {
			t.Errorf("hdc_run %q without confirm: isError %v %q", args, res.IsError, res.TextOf())
		}
	}

	// Inside the roots: no confirm needed.
	f.ok(t, hdc.ToolFileSend, map[string]any{"local": inside, "remote": "/data/local/tmp/in.bin"})
	if b, err := os.ReadFile(filepath.Join(dev, "data/local/tmp/in.bin")); err != nil || string(b) != "data\n" {
		t.Errorf("file inside the roots: %q %v", b, err)
	}
	// With confirm, any file.
	f.ok(t, hdc.ToolFileSend, map[string]any{"local": secret, "remote": "/data/local/tmp/c.bin", "confirm": true})
	f.ok(t, hdc.ToolRun, map[string]any{"args": []string{"file", "send", runLocal, "/data/local/tmp/c2.bin"}, "confirm": true})
	if !onDevice("data/local/tmp/c.bin") || !onDevice("data/local/tmp/c2.bin") {
		t.Error("confirmed sends did not copy")
	}
}
