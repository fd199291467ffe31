package mcphttp

import (
	"mime"
	"net/http"
	"testing"
)

// The media types answered without parsing are what the parser returns.
func TestParseMediaTypeShortcut(t *testing.T) {
	for _, v := range []string{"application/json", "text/event-stream", "*/*", "application/*", "text/*",
		"Application/JSON", "application/json; charset=utf-8", "text/event-stream;q=0", "bad/", ""} {
		mt, params, err := parseMediaType(v)
		wmt, wparams, werr := mime.ParseMediaType(v)
		if mt != wmt || (err == nil) != (werr == nil) || len(params) != len(wparams) {
			t.Errorf("%q: %q %v %v, mime.ParseMediaType %q %v %v", v, mt, params, err, wmt, wparams, werr)
		}
	}
}

// The framer sets its headers under these names directly in the map, so
// they must be what http.Header.Set would have made of them.
func TestHeaderNamesCanonical(t *testing.T) {
	for _, k := range []string{"Accept", "Content-Type", HeaderLastEventID, HeaderProtocolVersion, HeaderMethod, HeaderName, HeaderSessionID} {
		if c := http.CanonicalHeaderKey(k); c != k {
			t.Errorf("%q is not canonical (%q)", k, c)
		}
	}
}
