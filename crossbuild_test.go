package winbridge

import (
	"os"
	"os/exec"
	"testing"
)

// TestBuildsForEveryTarget builds every package of the module, examples
// included, for Windows and macOS as well as for this system, and
// type-checks their tests there (go vet): a user on either who runs
// `go build ./...` or `go test ./...` in a checkout must not meet a
// package that only compiles here. Programs that need Unix (the demo's
// fake device daemon) say so when run instead, and tests that need Linux
// are built only there.
func TestBuildsForEveryTarget(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH (go test puts its own there): %v", err)
	}
	for _, goos := range []string{"windows", "darwin"} {
		t.Run(goos, func(t *testing.T) {
			for _, verb := range []string{"build", "vet"} {
				cmd := exec.Command(goTool, verb, "./...")
				cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("GOOS=%s go %s ./...: %v\n%s", goos, verb, err, out)
				}
			}
		})
	}
}
