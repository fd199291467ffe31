package mcphttp

import (
	"net/http"
	"testing"
)

// TestAcceptsFastPath: the Accept values compared whole answer as their
// parsing does, for the types the handler asks about and others.
func TestAcceptsFastPath(t *testing.T) {
	for _, v := range []string{acceptBoth, acceptBothSSEFirst, "application/json", "text/event-stream", "*/*"} {
		for _, typ := range []string{"application/json", "text/event-stream", "text/html", "application/xml"} {
			fast := &http.Request{Header: http.Header{"Accept": {v}}}
			// A trailing space: not the exact string, so parsed, and
			// parsed the same.
			slow := &http.Request{Header: http.Header{"Accept": {v + " "}}}
			if got, want := accepts(fast, typ), accepts(slow, typ); got != want {
				t.Errorf("Accept %q, %s: %v, parsed %v", v, typ, got, want)
			}
		}
	}
	two := &http.Request{Header: http.Header{"Accept": {acceptBoth, "text/html;q=0"}}}
	if !accepts(two, "application/json") || accepts(two, "text/html") {
		t.Error("several Accept headers: not parsed")
	}
}
