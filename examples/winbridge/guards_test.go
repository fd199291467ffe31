package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// -check prints the guards in effect, following the settings.
func TestCheckPrintsGuards(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{
			"guards (docs/SECURITY.md):",
			"programs:    hdc.exe",
			"environment: none may be set",
			"at most 10m0s per call",
			"need confirm:true",
			"win_exec, path_*, hdc_*",
			"256 requests in flight",
			"http:        off (stdio)",
		}},
		{[]string{"-allow-exe", "*", "-allow-env", "FOO", "-max-timeout", "2m", "-hdc=false", "-dotted-names", "-http", "127.0.0.1:0"}, []string{
			"ANY valid program (ALLOW_EXE=*)",
			"environment: FOO;",
			"at most 2m0s per call",
			"hdc:         tools off",
			"dotted (win.exec, ...)",
			"127.0.0.1:0: loopback only, no token",
		}},
	} {
		s, err := parseSettings(tc.args, func(string) string { return "" }, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		check(s, &out)
		for _, w := range tc.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%q: -check output lacks %q:\n%s", tc.args, w, out.String())
			}
		}
	}
}
