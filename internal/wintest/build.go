package wintest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

type buildResult struct {
	path string
	err  error
}

var (
	buildMu    sync.Mutex
	buildCache = map[string]*buildResult{}
)

// cached runs build once per key for the whole test binary.
func cached(key string, build func() (string, error)) (string, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	if r, ok := buildCache[key]; ok {
		return r.path, r.err
	}
	p, err := build()
	buildCache[key] = &buildResult{p, err}
	return p, err
}

// GoWindowsExe cross-compiles the Go main package in dir (a directory path,
// absolute or relative to the test's working directory) for windows/amd64
// and returns the .exe path. Builds are cached per test binary run.
func GoWindowsExe(t testing.TB, dir string) string {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := cached("go:"+abs, func() (string, error) {
		work, err := WorkDir()
		if err != nil {
			return "", err
		}
		out := filepath.Join(work, filepath.Base(abs)+".exe")
		cmd := exec.Command("go", "build", "-o", out, ".")
		cmd.Dir = abs
		cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build %s for windows: %v\n%s", dir, err, b)
		}
		return out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// GoWindowsTestExe cross-compiles the tests of the Go package in dir for
// windows/amd64 (go test -c) and returns the .exe path, so that tests
// guarded by a windows build tag can run under wine. Builds are cached per
// test binary run.
func GoWindowsTestExe(t testing.TB, dir string) string {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := cached("gotest:"+abs, func() (string, error) {
		work, err := WorkDir()
		if err != nil {
			return "", err
		}
		out := filepath.Join(work, filepath.Base(abs)+".test.exe")
		cmd := exec.Command("go", "test", "-c", "-o", out, ".")
		cmd.Dir = abs
		cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go test -c %s for windows: %v\n%s", dir, err, b)
		}
		return out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// MingwCC is the mingw-w64 C compiler used by CWindowsExe.
const MingwCC = "x86_64-w64-mingw32-gcc"

// CWindowsExe compiles the C file src with mingw-w64 and returns the .exe
// path; extra flags follow the source (e.g. "-municode"). A missing
// compiler is reported through Missing.
func CWindowsExe(t testing.TB, src string, flags ...string) string {
	t.Helper()
	cc, err := exec.LookPath(MingwCC)
	if err != nil {
		Missing(t, "%s not found: install mingw-w64 (apt-get install gcc-mingw-w64-x86-64)", MingwCC)
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	p, err := cached("c:"+abs+strings.Join(flags, " "), func() (string, error) {
		work, err := WorkDir()
		if err != nil {
			return "", err
		}
		out := filepath.Join(work, strings.TrimSuffix(filepath.Base(abs), ".c")+".exe")
		args := append([]string{"-O1", "-o", out, abs}, flags...)
		if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			return "", fmt.Errorf("%s %s: %v\n%s", MingwCC, src, err, b)
		}
		return out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
