package mcphttp

import (
	"mime"
	"testing"
)

// FuzzParseMediaType checks the fast path against mime.ParseMediaType.
func FuzzParseMediaType(f *testing.F) {
	for _, s := range []string{"application/json", "text/event-stream", "*/*", "application/*", "Application/JSON",
		"application/json; charset=utf-8", "application/json; charset=utf-16", `application/json;charset="UTF-8"`, "application/json;q=0", "a/b/c", "/json", "json/", "", "te xt/plain", "a/b\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		mt, params, err := parseMediaType(v)
		wmt, wparams, werr := mime.ParseMediaType(v)
		if (err == nil) != (werr == nil) || mt != wmt || len(params) != len(wparams) {
			t.Fatalf("parseMediaType(%q) = %q %v %v; mime: %q %v %v", v, mt, params, err, wmt, wparams, werr)
		}
	})
}
