package winexec

import (
	"slices"
	"strings"
	"testing"
)

// FuzzPathTools checks what the path tools return for any path: a drive
// path becomes a path under its /mnt/<drive> with no "." or ".."
// component and no name ending in a dot or space (Windows applies the
// first lexically and drops the others), and a Linux path that holds
// ".." is refused, since Linux resolves it from where a symbolic link
// led. Seeds in testdata/fuzz/FuzzPathTools.
func FuzzPathTools(f *testing.F) {
	for _, s := range []string{`C:\x\..\..\etc\passwd`, `c:/a/./b. /..`, `\\?\C:\a\..\b`, "/mnt/c/../../etc", "/home/u/./x", `\\wsl$\U\..\..\etc`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		t.Setenv("WSL_DISTRO_NAME", "U")
		if out, err := pathToolWinToWSL(p); err == nil && isDrivePath(strings.ReplaceAll(p, "/", `\`)) {
			drive := "/mnt/" + strings.ToLower(p[:1])
			if out != drive && !strings.HasPrefix(out, drive+"/") {
				t.Fatalf("%q -> %q, not under %s", p, out, drive)
			}
			if slices.ContainsFunc(strings.Split(out, "/")[1:], func(c string) bool {
				return c == "" || c == "." || c == ".." || strings.HasSuffix(c, ".") || strings.HasSuffix(c, " ")
			}) {
				t.Fatalf("%q -> %q, which Windows would not name so", p, out)
			}
		}
		if strings.HasPrefix(p, "/") && slices.Contains(strings.Split(p, "/"), "..") {
			if out, err := pathToolWSLToWin(p); err == nil {
				t.Fatalf("%q -> %q, want a refusal", p, out)
			}
		}
		if out, err := pathToolWSLToWin(p); err == nil && strings.HasPrefix(p, "/") {
			if slices.ContainsFunc(strings.Split(out, `\`), func(c string) bool { return c == "." || c == ".." }) {
				t.Fatalf("%q -> %q", p, out)
			}
		}
	})
}
