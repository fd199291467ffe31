package winbridge

import (
	"os"
	"os/exec"
	"testing"
)

// TestBuildsForEveryTarget builds every package of the module, examples
// included, for Windows and macOS as well as for this system: a user on
// either who runs `go build ./...` (or `go vet ./...`) in a checkout must
// not meet a package that only compiles here. Programs that need Unix (the
// demo's fake device daemon) say so when run instead.
func TestBuildsForEveryTarget(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH (go test puts its own there): %v", err)
	}
	for _, goos := range []string{"windows", "darwin"} {
		t.Run(goos, func(t *testing.T) {
			cmd := exec.Command(goTool, "build", "./...")
			cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("GOOS=%s go build ./...: %v\n%s", goos, err, out)
			}
		})
	}
}
