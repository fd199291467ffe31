//go:build unix

package winexec

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestJobHelperNameSearchSkipsCwd: with the job helper the program name
// reaches Windows inside the helper's command line, and the helper's
// CreateProcess searches its current directory, the request's cwd,
// before PATH, as the launcher does. A name that directory holds must be
// refused there too (before, the check looked at the helper's own path,
// which is never searched, and let the name through), under a launcher
// and under WSL interop alike.
func TestJobHelperNameSearchSkipsCwd(t *testing.T) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1)")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "zzplanted.exe"), []byte("MZ"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]*Direct{
		"launcher": {Launcher: []string{truePath}, JobHelper: `C:\tools\jobrun.exe`, CodePage: 437},
		// Under WSL a name the Linux PATH does not hold stays a name
		// for the helper's CreateProcess.
		"interop": {JobHelper: truePath, CodePage: 437},
	} {
		for _, exe := range []string{"zzplanted.exe", "ZZPLANTED", "zzPlanted.EXE"} {
			_, err := d.Run(context.Background(), &Request{Exe: exe, Cwd: dir})
			if !errors.Is(err, ErrInvalidExe) {
				t.Errorf("%s: %s: err %v; want ErrInvalidExe and nothing run", name, exe, err)
			}
		}
		// A name the directory does not hold runs.
		if _, err := d.Run(context.Background(), &Request{Exe: "zzabsent.exe", Cwd: dir}); err != nil {
			t.Errorf("%s: a name absent from the directory: %v", name, err)
		}
	}
}
