package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// validCases are inputs on which Valid must agree with json.Valid &&
// utf8.Valid; they are also the fuzz seeds.
var validCases = []string{
	``, ` `, `null`, `true`, `false`, `nul`, `truee`, `0`, `-0`, `01`, `-`, `1.`, `1.5`, `1e`, `1e+`, `1E-7`,
	`-12.5e+3`, `"`, `""`, `"abc`, `"a\"b"`, `"\u00e9"`, `"\u00G9"`, `"\x"`, "\"\x01\"", "\"\x7f\"",
	`"é"`, "\"\xff\"", "\"\xc3\"", "\"\xed\xa0\x80\"", `{}`, `{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{1:2}`,
	`[]`, `[1,2]`, `[1,]`, `[,1]`, `[1 2]`, `{"a":[{"b":"c"}]}`, ` {"a" : "b" } `, "\t[\r\n]\n",
	`{"a":1}{}`, `[1]]`, `"abcdefghijklmnopqrstuvwxyz0123456789"`, `"abcdefgh\"ijklmnop"`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"héllo\\n\"}}}",
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
}

func checkValid(t *testing.T, b []byte) {
	t.Helper()
	want := json.Valid(b) && utf8.Valid(b)
	if got := Valid(b); got != want {
		t.Fatalf("Valid(%.80q) = %v, want %v", b, got, want)
	}
}

func TestValid(t *testing.T) {
	for _, c := range validCases {
		checkValid(t, []byte(c))
	}
}

func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkValid(t, b) })
}

func TestHasLineBreak(t *testing.T) {
	for in, want := range map[string]bool{``: false, `{"a":"\n"}`: false, "{\n}": true, "{\r}": true, "x": false} {
		if got := HasLineBreak([]byte(in)); got != want {
			t.Errorf("HasLineBreak(%q) = %v", in, got)
		}
	}
}

func BenchmarkValid8MiB(b *testing.B) {
	msg := []byte(`{"text":"` + strings.Repeat("abcdefgh", 1<<20) + `"}`)
	b.SetBytes(int64(len(msg)))
	b.Run("jsonscan", func(b *testing.B) {
		for b.Loop() {
			if !Valid(msg) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("encoding-json+utf8", func(b *testing.B) {
		for b.Loop() {
			if !json.Valid(msg) || !utf8.Valid(msg) {
				b.Fatal("invalid")
			}
		}
	})
}
