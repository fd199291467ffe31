package examples

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/internal/peertest"
)

// Every binary answers -version on stdout and exits 0, without starting
// anything; a bad flag is reported once, on one line.
func TestEveryBinaryHasVersion(t *testing.T) {
	for _, name := range []string{"demo", "echo", "everything-client", "everything-server", "mcpc", "winbridge", "windbg"} {
		t.Run(name, func(t *testing.T) {
			bin := peertest.BuildGo(t, "./examples/"+name)
			var out, errb bytes.Buffer
			cmd := exec.Command(bin, "-version")
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil || !strings.HasPrefix(out.String(), name+" ") {
				t.Errorf("-version: %v, stdout %q, stderr %q", err, out.String(), errb.String())
			}
			if name == "everything-client" || name == "everything-server" {
				return // their flags are the conformance suite's, or the flag package's own
			}
			out.Reset()
			errb.Reset()
			cmd = exec.Command(bin, "-no-such-flag")
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			if peertest.ExitCode(err) != 2 || strings.Count(errb.String(), "no-such-flag") != 1 || strings.Count(errb.String(), "\n") != 1 {
				t.Errorf("bad flag: %v, stderr %q; want status 2 and the error once", err, errb.String())
			}
		})
	}
}
