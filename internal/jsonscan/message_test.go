package jsonscan

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// messageSeeds mix valid JSON with invalid UTF-8 in and out of strings.
var messageSeeds = []string{
	`""`, `"é"`, "\"\xff\"", "\"\xc3\"", "\"\xed\xa0\x80\"", "\xff", `{"a":"b"}`, "{\"a\":\"\xc3\xa9\"}",
	"{\"a\xff\":1}", `[1,"x"]`, "[1,\"\xe2\x82\"]",
}

func checkMessage(t *testing.T, b []byte) {
	t.Helper()
	want := json.Valid(b) && utf8.Valid(b)
	if got := ValidMessage(b); got != want {
		t.Fatalf("ValidMessage(%.80q) = %v, want %v", b, got, want)
	}
}

func TestValidMessage(t *testing.T) {
	for _, c := range append(messageSeeds, validSeeds...) {
		checkMessage(t, []byte(c))
	}
}

func FuzzValidMessage(f *testing.F) {
	for _, c := range messageSeeds {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkMessage(t, b) })
}

func TestHasLineBreak(t *testing.T) {
	for in, want := range map[string]bool{``: false, `{"a":"\n"}`: false, "{\n}": true, "{\r}": true, "x": false} {
		if got := HasLineBreak([]byte(in)); got != want {
			t.Errorf("HasLineBreak(%q) = %v", in, got)
		}
	}
}
