package mcphttp_test

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The reason this package exists: a stdio server or client, which imports
// mcp, transport and client but not mcphttp, must not link net/http (nor
// crypto/tls and crypto/x509 behind it), whose initialisation every
// process start would pay for. Checked for each operating system the
// module supports, since stdio has per-OS files.
func TestStdioPackagesDoNotLinkHTTP(t *testing.T) {
	goBin, err := exec.LookPath("go") // go test puts its own toolchain first on PATH
	if err != nil {
		t.Fatalf("no go command on PATH: %v", err)
	}
	const mod = "github.com/winbridge/winbridge/"
	pkgs := []string{mod + "mcp", mod + "transport", mod + "client"}
	forbidden := []string{"net/http", "crypto/tls", "crypto/x509"}
	for _, goos := range []string{"linux", "windows", "darwin"} {
		t.Run(goos, func(t *testing.T) {
			cmd := exec.Command(goBin, append([]string{"list", "-deps"}, pkgs...)...)
			cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64")
			out, err := cmd.Output()
			if err != nil {
				var stderr []byte
				if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
					stderr = ee.Stderr
				}
				t.Fatalf("go list -deps: %v\n%s", err, stderr)
			}
			deps := strings.Fields(string(out))
			for _, p := range forbidden {
				if slices.Contains(deps, p) {
					t.Errorf("mcp, transport and client link %s; HTTP code belongs in mcp/mcphttp. Find the importer with: GOOS=%s go list -deps -f '{{.ImportPath}}: {{.Imports}}' ./mcp ./transport ./client | grep -w %s", p, goos, p)
				}
			}
		})
	}
}
