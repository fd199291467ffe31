package mcphttp

import (
	"net/http"
	"strings"
	"testing"
)

// The framer sets its headers under these names directly in the map, so
// they must be what http.Header.Set would have made of them.
func TestHeaderNamesCanonical(t *testing.T) {
	for _, k := range []string{"Accept", "Content-Type", HeaderLastEventID, HeaderProtocolVersion, HeaderMethod, HeaderName, HeaderSessionID} {
		if c := http.CanonicalHeaderKey(k); c != k {
			t.Errorf("%q is not canonical (%q)", k, c)
		}
	}
}

// A response that declares a large Content-Length gets no buffer of that
// size before its bytes arrive; a small one is read whole.
func TestReadLimitedDoesNotTrustLength(t *testing.T) {
	b, err := readLimited(strings.NewReader("{}"), 16<<20, 32<<20)
	if err != nil || string(b) != "{}" || cap(b) > 1<<20 {
		t.Fatalf("declared 16 MiB, sent 2 bytes: read %d bytes into a buffer of %d, %v", len(b), cap(b), err)
	}
	b, err = readLimited(strings.NewReader(`{"a":1}`), 7, 32<<20)
	if err != nil || string(b) != `{"a":1}` {
		t.Fatalf("declared 7: %q, %v", b, err)
	}
	b, _ = readLimited(strings.NewReader(strings.Repeat("x", 100)), -1, 10)
	if len(b) != 11 {
		t.Fatalf("max 10 of 100 unknown-length bytes read %d, want 11 (one past, to tell it is too large)", len(b))
	}
}
