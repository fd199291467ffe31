package jsonscan

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestLoneSurrogate(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{`{"a":"plain"}`, false},
		{`"\ud83d\ude00"`, false}, // a pair: 😀
		{`"\uD83D\uDE00"`, false},
		{`"\ud800"`, true},
		{`"\ud800x"`, true},
		{`"\ud800\n"`, true},
		{`"\ud800\ud800"`, true},
		{`"\udc00"`, true},
		{`"\udc00\ud800"`, true},
		{`"\\ud800"`, false}, // an escaped backslash, then text
		{`"\\\ud800"`, true},
		{`"\u00e9\u20ac"`, false},
		{`{"\ud800":1}`, true}, // names too
		{`["\ud83d\ude00","\ude00"]`, true},
		{`"\ud800`, true}, // cut short: no panic
	} {
		if got := LoneSurrogate([]byte(c.in)); got != c.want {
			t.Errorf("LoneSurrogate(%s) = %v, want %v", c.in, got, c.want)
		}
	}
}

// FuzzLoneSurrogate: valid JSON without a lone surrogate decodes to the
// same strings in encoding/json as it would anywhere: no U+FFFD that the
// input did not write. (encoding/json turns each lone half into U+FFFD.)
func FuzzLoneSurrogate(f *testing.F) {
	for _, s := range []string{`"\ud800"`, `"\ud83d\ude00"`, `"\\ud800"`, `"\ufffd"`, `{"\udc00":"x"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) || !utf8.Valid(b) {
			return
		}
		lone := LoneSurrogate(b)
		var s string
		if json.Unmarshal(b, &s) != nil {
			return
		}
		// Count U+FFFD written (raw or as \ufffd) against those decoded.
		if !lone && countFFFD(s) != writtenFFFD(b) {
			t.Fatalf("%q: no lone surrogate found, yet %d U+FFFD decoded from %d written", b, countFFFD(s), writtenFFFD(b))
		}
		if lone && countFFFD(s) == writtenFFFD(b) {
			t.Fatalf("%q: a lone surrogate found, yet nothing decoded as U+FFFD", b)
		}
	})
}

func countFFFD(s string) int {
	n := 0
	for _, r := range s {
		if r == utf8.RuneError {
			n++
		}
	}
	return n
}

// writtenFFFD counts U+FFFD in a JSON string literal, raw or escaped.
func writtenFFFD(b []byte) int {
	n := 0
	for i := 0; i < len(b); {
		if b[i] == '\\' {
			if r := getu4(b[i:]); r >= 0 {
				if r == 0xfffd {
					n++
				}
				if 0xd800 <= r && r < 0xdc00 {
					if lo := getu4(b[i+6:]); lo >= 0xdc00 && lo < 0xe000 {
						i += 12
						continue
					}
				}
				i += 6
				continue
			}
			i += 2
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 3 {
			n++
		}
		i += size
	}
	return n
}
