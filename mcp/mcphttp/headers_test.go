package mcphttp

import (
	"net/http"
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
