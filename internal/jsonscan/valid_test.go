package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var validSeeds = []string{
	``, ` `, `{}`, `[]`, `""`, `"a"`, `0`, `-0`, `-`, `01`, `1.`, `1.5`, `1e`, `1e+`, `1E-7`, `-12.5e+3`,
	`.5`, `+1`, `true`, `tru`, `truex`, `false`, `null`, `nul`, ` [1, 2 ,3] `, `[1,]`, `[,1]`, `{"a":1,}`,
	`{"a" 1}`, `{a:1}`, `{"a":1}x`, `{"a":1} {}`, `"\u00e9"`, `"\u00g9"`, `"\x"`, `"\/\b\f\n\r\t\"\\"`,
	"\"\x01\"", "\"\x7f\"", "\"\xff\xfe\"", "\"é\"", `"abc`, `"abcdefghijklmnopqrstuvwxyz"`,
	`"abcdefgh\"ijklmnop"`, `"abcdefghijklmnop\`, `{"a":[{"b":{"c":[null,true,false,"x",1e9]}}]}`,
	"\t{\n\"a\"\r:\n1}\n", `[[[]]]`, `[{]`, `{"a":}`, `{"a"}`, `{,}`, "\ufeff{}", "\"\u2028\"",
}

func FuzzValid(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid says %v", b, got, want)
		}
	})
}

func TestValid(t *testing.T) {
	for _, s := range validSeeds {
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%q) = %v, json.Valid says %v", s, got, want)
		}
	}
}

func TestValidDepth(t *testing.T) {
	for _, n := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		for _, open := range []string{"[", `{"a":`} {
			closer := map[string]string{"[": "]", `{"a":`: "}"}[open]
			b := []byte(strings.Repeat(open, n) + "1" + strings.Repeat(closer, n))
			if got, want := Valid(b), json.Valid(b); got != want {
				t.Errorf("depth %d of %s: Valid = %v, json.Valid %v", n, open, got, want)
			}
		}
	}
}

// TestPlainRunEveryPosition puts each kind of special byte at every
// position of a word-sized scan, where the word-at-a-time test could miss
// it.
func TestPlainRunEveryPosition(t *testing.T) {
	for _, c := range []byte{'"', '\\', 0, 0x1f, 0x80, 0xff} {
		for n := range 20 {
			for pos := range n {
				s := bytes.Repeat([]byte{'a'}, n)
				s[pos] = c
				want := pos
				if c >= 0x80 {
					if got := plainRun(s, false); got != n {
						t.Errorf("plainRun(%q, false) = %d, want %d", s, got, n)
					}
				}
				if got := plainRun(s, true); got != want {
					t.Errorf("plainRun(%q, true) = %d, want %d", s, got, want)
				}
			}
		}
	}
	// Bytes just around the special ones are plain.
	s := []byte{' ', '!', '#', '[', ']', 0x7f, 0x21, 0x23, '{'}
	if got := plainRun(s, true); got != len(s) {
		t.Errorf("plainRun(%q) = %d, want all", s, got)
	}
}

var unquoteSeeds = []string{
	`""`, `"a"`, `"abcdefghijklmnopqrstuvwxyz"`, `"a\nb"`, `"\u00e9t\u00E9"`, `"\ud83d\ude00"`,
	`"\ud83d"`, `"\ud83dx"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`, "\"\xff\"", "\"ab\xe2\x82\"", "\"€uro\"",
	`"\/\b\f\n\r\t\"\\"`, `"tab\there and a long run of plain text after it, to be copied whole"`,
	"\"" + strings.Repeat("x", 100) + "\xc3\xa9" + strings.Repeat("y", 100) + "\\n\"",
	`"<&>"`, "\"\u2028\"",
}

func FuzzUnquote(f *testing.F) {
	for _, s := range unquoteSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want string
		if !json.Valid(b) || json.Unmarshal(b, &want) != nil {
			// What encoding/json refuses, Unquote refuses: callers use
			// it on tokens no one else checked.
			if len(b) > 0 && b[0] == '"' && !bytes.ContainsAny(b, " \t\r\n") {
				if got, ok := Unquote(b); ok {
					t.Fatalf("Unquote(%q) = %q; encoding/json refuses it", b, got)
				}
			}
			return
		}
		tok := bytes.Trim(b, " \t\r\n") // Unquote takes the token alone
		got, ok := Unquote(tok)
		if !ok || got != want {
			t.Fatalf("Unquote(%q) = %q, %v; encoding/json decodes %q", b, got, ok, want)
		}
	})
}

func TestUnquote(t *testing.T) {
	for _, s := range unquoteSeeds {
		var want string
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if got, ok := Unquote([]byte(s)); !ok || got != want {
			t.Errorf("Unquote(%s) = %q, %v, want %q", s, got, ok, want)
		}
	}
	// \' is an escape in JavaScript, not in JSON: encoding/json's scanner
	// refuses it, though the decoding it leaves to afterwards would take it.
	for _, s := range []string{``, `"`, `a`, `"\"`, `"\x"`, `"\u12"`, "\"a\x01\"", `"\'"`, `"it\'s"`, `"""`, `"a"b"`} {
		if _, ok := Unquote([]byte(s)); ok {
			t.Errorf("Unquote(%q) accepted it", s)
		}
	}
}

func FuzzElements(f *testing.F) {
	for _, s := range []string{`[]`, `[1]`, ` [ "a" , {"b":[2]} , null ] `, `["]\"", []]`, `{}`, `1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		var want []json.RawMessage
		isArray := json.Unmarshal(b, &want) == nil && bytes.TrimLeft(b, " \t\r\n")[0] == '['
		var got []json.RawMessage
		err := Elements(b, func(v []byte) bool {
			got = append(got, v)
			return true
		})
		if !isArray {
			if err == nil {
				t.Fatalf("%q: no error for a non-array", b)
			}
			return
		}
		if err != nil || len(got) != len(want) {
			t.Fatalf("%q: %d elements, %v; want %d", b, len(got), err, len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("%q: element %d is %q, want %q", b, i, got[i], want[i])
			}
		}
	})
}

func TestSkipStringManyEscapes(t *testing.T) {
	// One escaped character every few bytes, and the closing quote far
	// away: each byte must be searched once, not once per escape.
	s := []byte(`"` + strings.Repeat(`ab\"cd\\ef\n`, 200000) + `"`)
	if got := Skip(s, 0); got != len(s) {
		t.Fatalf("Skip = %d, want %d", got, len(s))
	}
}

func BenchmarkValid8MiB(b *testing.B) {
	big, _ := json.Marshal(map[string]string{"type": "text", "text": strings.Repeat("x", 8<<20)})
	b.SetBytes(int64(len(big)))
	for b.Loop() {
		if !Valid(big) {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkJSONValid8MiB(b *testing.B) {
	big, _ := json.Marshal(map[string]string{"type": "text", "text": strings.Repeat("x", 8<<20)})
	b.SetBytes(int64(len(big)))
	for b.Loop() {
		if !json.Valid(big) {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkUnquote8MiB(b *testing.B) {
	big, _ := json.Marshal(strings.Repeat("x", 8<<20))
	b.SetBytes(int64(len(big)))
	for b.Loop() {
		if _, ok := Unquote(big); !ok {
			b.Fatal("invalid")
		}
	}
}

// membersValidSeeds add objects with escaped and invalid UTF-8 keys, and
// members after which the caller stops, to validSeeds.
var membersValidSeeds = append([]string{
	`{"a":1,"b":[2,{"c":3}],"d":"x"}`, `{"a\u0062":1,"\u00e9":2}`, "{\"\xff\":1}", ` { "a" : { } , "b" : [ ] } `,
	`{"stop":1,"a":2}`, `{"stop":1,"a":}`, `{"a":1}}`, `{"a":1`, `{"a":1,`, `{"a"`, `{"a":1 "b":2}`,
}, validSeeds...)

// membersValidAgrees checks MembersValid against Valid and, for valid
// input, MembersBytes, with an f that stops at a key "stop".
func membersValidAgrees(t *testing.T, b []byte) {
	type member struct{ k, v string }
	var got, want []member
	valid := MembersValid(b, func(k, v []byte) bool {
		got = append(got, member{string(k), string(v)})
		return string(k) != "stop"
	})
	if want := Valid(b); valid != want {
		t.Fatalf("MembersValid(%q) = %v, Valid says %v", b, valid, want)
	}
	if !valid {
		return
	}
	_ = MembersBytes(b, func(k, v []byte) bool {
		want = append(want, member{string(k), string(v)})
		return string(k) != "stop"
	})
	if len(got) != len(want) {
		t.Fatalf("MembersValid(%q) gave %q, MembersBytes %q", b, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("MembersValid(%q) gave %q, MembersBytes %q", b, got, want)
		}
	}
}

func FuzzMembersValid(f *testing.F) {
	for _, s := range membersValidSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(membersValidAgrees)
}

func TestMembersValid(t *testing.T) {
	for _, s := range membersValidSeeds {
		membersValidAgrees(t, []byte(s))
	}
	for _, n := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		b := []byte(`{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + "}")
		if got, want := MembersValid(b, func(k, v []byte) bool { return true }), json.Valid(b); got != want {
			t.Errorf("depth %d: MembersValid = %v, json.Valid %v", n, got, want)
		}
	}
}
