package winexec

import (
	"slices"
	"strings"
	"testing"
)

// FuzzBatchArgs: whatever checkBatchArgs lets through reaches cmd.exe as
// text it takes literally. cmd.exe toggles quoting at every double quote
// and knows no escape inside quotes, so the line must hold no
// metacharacter at all, and its quotes must be only the pairs
// BuildCommandLine puts around the program and around an argument (no
// argument may bring its own). The MSVCRT split then gives the arguments
// back. The same rule holds for the values of the request's variables,
// which a script expands into its lines unquoted.
func FuzzBatchArgs(f *testing.F) {
	for _, s := range []string{"a\x00b c", `a" & calc & "`, "x\x00", `trailing\`, `a\"b`, "%PATH%", "a,b;c=d", "ünï"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsRune(s, 0x00) && !strings.Contains(s, "\x00") {
			return
		}
		args := strings.Split(s, "\x00")
		const bat = `C:\tools\run.cmd`
		// A variable's value lands unquoted in a script line (%V%), where
		// no metacharacter, quote or control character may be.
		if checkBatchEnv(bat, map[string]string{"V": s}) == nil {
			for _, r := range s {
				if r < 0x20 || r == 0x7f || strings.ContainsRune(`"%!^&|<>()`, r) {
					t.Fatalf("value %q holds %q, and %%V%% would put it in a script line", s, r)
				}
			}
		}
		if checkBatchArgs(bat, args) != nil {
			return
		}
		line := BuildCommandLine(bat, args)
		if i := strings.IndexAny(line, "%!^&|<>()\r\n"); i >= 0 {
			t.Fatalf("%q: line %q holds %q", args, line, line[i])
		}
		for _, a := range args {
			q := QuoteArg(a)
			if n := strings.Count(q, `"`); n != 0 && (n != 2 || q[0] != '"' || q[len(q)-1] != '"') {
				t.Fatalf("%q: argument %q quoted as %q: quotes other than the pair around it", args, a, q)
			}
		}
		if got := SplitCommandLine(line); !slices.Equal(got, append([]string{bat}, args...)) {
			t.Fatalf("%q: line %q splits into %q", args, line, got)
		}
	})
}
