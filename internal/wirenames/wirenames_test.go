package wirenames

import "testing"

func TestUnquoteNoAllocation(t *testing.T) {
	for _, tok := range []string{`"tools/call"`, `"2026-07-28"`, `"complete"`} {
		b := []byte(tok)
		if s, ok := Unquote(b); !ok || `"`+s+`"` != tok {
			t.Fatalf("%s: %q %v", tok, s, ok)
		}
		if n := testing.AllocsPerRun(100, func() { _, _ = Unquote(b) }); n != 0 {
			t.Errorf("%s: %v allocations", tok, n)
		}
	}
}
