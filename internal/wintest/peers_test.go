package wintest

import (
	"fmt"
	"testing"
)

// recorder stands in for *testing.T to observe Missing's choice.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, args ...any) { r.skipped = fmt.Sprintf(format, args...) }

func (r *recorder) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }

func TestMissingSkipsOrFails(t *testing.T) {
	t.Setenv(RequirePeersEnv, "")
	r := &recorder{}
	Missing(r, "wine %s", "absent")
	if r.skipped == "" || r.failed != "" {
		t.Errorf("without %s: skipped %q failed %q", RequirePeersEnv, r.skipped, r.failed)
	}
	t.Setenv(RequirePeersEnv, "1")
	r = &recorder{}
	Missing(r, "wine %s", "absent")
	if r.failed == "" || r.skipped != "" {
		t.Errorf("with %s=1: skipped %q failed %q", RequirePeersEnv, r.skipped, r.failed)
	}
}

func TestProcessesUnknownToken(t *testing.T) {
	if got := Processes("no-such-token-3f9a1c"); len(got) != 0 {
		t.Errorf("found %v for a token nobody has", got)
	}
}
