//go:build !unix

package winexec

import (
	"fmt"
	"os"
)

// fakePowerShell needs process groups; the PowerShell backend tests that
// use it are Unix-only.
func fakePowerShell(string) int {
	fmt.Fprintln(os.Stderr, "fake powershell is Unix-only")
	return 64
}
