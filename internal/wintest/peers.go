package wintest

import (
	"os"
	"testing"
)

// RequirePeersEnv names the variable that turns missing tools into test
// failures. CI sets it so that an environment without wine or mingw cannot
// pass by skipping.
const RequirePeersEnv = "WINBRIDGE_REQUIRE_PEERS"

// PeersRequired reports whether RequirePeersEnv is set to 1.
func PeersRequired() bool { return os.Getenv(RequirePeersEnv) == "1" }

// Missing reports that a tool the test needs is unavailable: t.Skip with the
// reason, or t.Fatal when PeersRequired.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if PeersRequired() {
		t.Fatalf("required peer missing ("+RequirePeersEnv+"=1): "+format, args...)
	} else {
		t.Skipf("skipped, peer missing (set "+RequirePeersEnv+"=1 to fail instead): "+format, args...)
	}
}
