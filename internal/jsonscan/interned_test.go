package jsonscan

import "testing"

func TestUnquoteInterned(t *testing.T) {
	tab := NewInterned("tools/call", "2026-07-28")
	for _, tok := range []string{`"tools/call"`, `"tools\/call"`, `"tools\u002fcall"`, `"other"`, `"2026-07-28"`, `"a\"b"`, `""`, `"`, `5`, "\"\xff\""} {
		got, ok := tab.UnquoteInterned([]byte(tok))
		want, wantOK := Unquote([]byte(tok))
		if got != want || ok != wantOK {
			t.Errorf("%s: %q %v, Unquote %q %v", tok, got, ok, want, wantOK)
		}
	}
	b := []byte(`"tools/call"`)
	if n := testing.AllocsPerRun(100, func() { _, _ = tab.UnquoteInterned(b) }); n != 0 {
		t.Errorf("%v allocations for an interned string", n)
	}
}

func FuzzUnquoteInterned(f *testing.F) {
	tab := NewInterned("tools/call", "2026-07-28", "complete", "")
	for _, s := range []string{`"tools/call"`, `"tools\/call"`, `"complete"`, `""`, `"x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, tok []byte) {
		got, ok := tab.UnquoteInterned(tok)
		want, wantOK := Unquote(tok)
		if got != want || ok != wantOK {
			t.Fatalf("%q: %q %v, Unquote %q %v", tok, got, ok, want, wantOK)
		}
	})
}
