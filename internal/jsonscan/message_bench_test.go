package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
)

// statelessCall is a 2026-07-28 tools/call as winbridge's client sends it:
// most of it is the _meta every request carries, walked by MembersBytes
// and Skip several times on each side.
const statelessCall = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello world!"},` +
	`"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"winbridge","version":"0.1.0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`

func BenchmarkSkipMessage(b *testing.B) {
	msg := []byte(statelessCall)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if Skip(msg, 0) != len(msg) {
			b.Fatal("short")
		}
	}
}

func BenchmarkMembersBytesMessage(b *testing.B) {
	msg := []byte(statelessCall)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		n := 0
		_ = MembersBytes(msg, func(k, v []byte) bool { n++; return true })
		if n != 4 {
			b.Fatal(n)
		}
	}
}

func BenchmarkSkip8MiB(b *testing.B) {
	big, _ := json.Marshal(map[string]string{"type": "text", "text": string(bytes.Repeat([]byte("x"), 8<<20))})
	b.SetBytes(int64(len(big)))
	for b.Loop() {
		if Skip(big, 0) != len(big) {
			b.Fatal("short")
		}
	}
}

// skipStringByBytes is skipString as the plain loop it must agree with,
// on any input: a backslash takes the byte after it, whatever that is,
// and a string with no closing quote runs to the end.
func skipStringByBytes(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			i++
		}
	}
	return len(b)
}

// skipString agrees with the plain loop on any bytes, from any quote:
// within its first words (checked eight at a time), past them (searched),
// and across the boundary between the two, escapes straddling it
// included.
func FuzzSkipString(f *testing.F) {
	for _, s := range []string{
		`"abc"`, `"a\"b"`, `"\\"`, `"\\\""`, `"unterminated`, `"ends in a backslash\`,
		`"` + string(bytes.Repeat([]byte("x"), 63)) + `\"" tail"`,
		`"` + string(bytes.Repeat([]byte("x"), 64)) + `\"" tail"`,
		`"` + string(bytes.Repeat([]byte(`\\`), 40)) + `"x"`,
		`"` + string(bytes.Repeat([]byte("é"), 40)) + `\u0022"`,
		"\"\x00\x01\x1f\x7f\x80\xff\"", `"12345678"`, `"1234567\"`,
	} {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, b []byte, at int) {
		if len(b) == 0 {
			return
		}
		i := at % len(b)
		if i < 0 {
			i += len(b)
		}
		if got, want := skipString(b, i), skipStringByBytes(b, i); got != want {
			t.Fatalf("skipString(%q, %d) = %d, want %d", b, i, got, want)
		}
	})
}

func BenchmarkValidMessage(b *testing.B) {
	msg := []byte(statelessCall)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if !ValidMessage(msg) {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkMembersValidMessage(b *testing.B) {
	msg := []byte(statelessCall)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if !MembersValid(msg, func(k, v []byte) bool { return true }) {
			b.Fatal("invalid")
		}
	}
}
