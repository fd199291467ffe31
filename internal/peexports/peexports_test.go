package peexports

import (
	"bytes"
	"debug/pe"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/internal/wintest"
)

// mingwBuild compiles C source into a DLL (or an .exe with exe set).
func mingwBuild(t *testing.T, name, src string, exe bool) string {
	t.Helper()
	cc, err := exec.LookPath(wintest.MingwCC)
	if err != nil {
		wintest.Missing(t, "%s not found", wintest.MingwCC)
	}
	dir := t.TempDir()
	c := filepath.Join(dir, name+".c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	args := []string{"-o", out, c}
	if !exe {
		args = append([]string{"-shared"}, args...)
	}
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return out
}

func TestNamesAndCheck(t *testing.T) {
	dll := mingwBuild(t, "two.dll", `__declspec(dllexport) int Zeta(void) { return 1; }
__declspec(dllexport) int alpha(void) { return 2; }
`, false)
	names, err := Names(dll)
	if err != nil || strings.Join(names, ",") != "Zeta,alpha" {
		t.Fatalf("Names: %q %v", names, err)
	}
	if err := Check(dll, []string{"alpha", "Zeta"}); err != nil {
		t.Errorf("Check with both: %v", err)
	}
	// Case matters, as for GetProcAddress.
	if err := Check(dll, []string{"Alpha", "Zeta", "Omega"}); err == nil || !strings.Contains(err.Error(), `["Alpha" "Omega"]`) {
		t.Errorf("Check with Alpha and Omega missing: %v", err)
	}
}

func TestNoExports(t *testing.T) {
	exe := mingwBuild(t, "plain.exe", "int main(void) { return 0; }\n", true)
	if _, err := Names(exe); !errors.Is(err, ErrNoExports) {
		t.Errorf("an exe without exports: %v", err)
	}
	notPE := filepath.Join(t.TempDir(), "text.dll")
	os.WriteFile(notPE, []byte("MZ but not really a PE file at all"), 0o644)
	if _, err := Names(notPE); err == nil {
		t.Error("a non-PE file was read")
	}
}

// Hostile images fail or succeed, within bounds, without panicking.
func FuzzNames(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "seed.dll")); err == nil {
		f.Add(b)
	}
	f.Add([]byte("MZ"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, err := pe.NewFile(bytes.NewReader(data))
		if err != nil {
			return
		}
		names, err := exportNames(pf)
		if err == nil && len(names) > maxNames {
			t.Fatalf("%d names", len(names))
		}
	})
}
