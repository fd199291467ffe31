package hdc_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/winbridge/winbridge/internal/wintest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	wintest.Cleanup()
	if nativeDir != "" {
		os.RemoveAll(nativeDir)
	}
	os.Exit(code)
}

var (
	nativeOnce sync.Once
	nativeDir  string
	nativeExe  string
	nativeErr  error
)

// nativeFake builds the fake hdc for this machine once per test binary.
func nativeFake(t testing.TB) string {
	t.Helper()
	nativeOnce.Do(func() {
		nativeDir, nativeErr = os.MkdirTemp("", "fakehdc-")
		if nativeErr != nil {
			return
		}
		nativeExe = filepath.Join(nativeDir, "hdc")
		cmd := exec.Command("go", "build", "-o", nativeExe, "../internal/fakehdc/cmd/hdc")
		if b, err := cmd.CombinedOutput(); err != nil {
			nativeErr = fmt.Errorf("building the fake hdc: %v\n%s", err, b)
		}
	})
	if nativeErr != nil {
		t.Fatal(nativeErr)
	}
	return nativeExe
}
