package main

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/winbridge/winbridge/internal/termtext"
	"github.com/winbridge/winbridge/mcp"
)

// The JSON on stdout shows a server's bidirectional overrides and control
// characters as \uXXXX, and means the same. Before, encoding/json left
// U+202A-U+202E, U+2066-U+2069, DEL and the C1 controls as they were: a
// result could reorder what the user read in the terminal, or drive it.
func TestResultJSONIsTerminalSafe(t *testing.T) {
	code, out, errs := mcpc(t, "-e", serverEnv+"=1", "call", "bidi", "--", self(t))
	if code != exitOK {
		t.Fatalf("status %d: %s", code, errs)
	}
	if i := strings.IndexFunc(out, unsafeForTerminal); i >= 0 {
		t.Errorf("stdout has %U raw: %q", []rune(out[i:])[0], out)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.TextOf() != bidiText {
		t.Fatalf("the escaped JSON does not mean the same: %v, %q", err, res.TextOf())
	}
	if !strings.Contains(out, `invoice_\u202etxt.exe\u2066`) {
		t.Errorf("the override is not shown escaped: %q", out)
	}
}

// unsafeForTerminal reports what terminalSafeJSON must escape: what
// termtext would, but the white space of the JSON's indentation.
func unsafeForTerminal(r rune) bool {
	return r != '\t' && r != '\n' && r != '\r' && r != utf8.RuneError && !termtext.Printable(r)
}

// FuzzTerminalSafeJSON: whatever a value holds, its escaped JSON decodes
// to what the JSON did, and holds nothing a terminal acts on.
func FuzzTerminalSafeJSON(f *testing.F) {
	for _, s := range []string{"plain", bidiText, "\u202e\u2069\u0080\u009f\x7f\x00\t\n", "中文 \u2028", "\xff\xfe", "zero\u200b\u00a0\ufeff", "tag\U000E0041\U0001D173"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := map[string]any{s: []any{s, map[string]string{"k": s}}}
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		safe := terminalSafeJSON(b)
		if i := strings.IndexFunc(string(safe), unsafeForTerminal); i >= 0 || !utf8.Valid(safe) {
			t.Fatalf("%q escaped to %q", b, safe)
		}
		var x, y any
		if json.Unmarshal(b, &x) != nil || json.Unmarshal(safe, &y) != nil {
			t.Fatalf("%q escaped to %q, which is not JSON", b, safe)
		}
		if xb, _ := json.Marshal(x); string(xb) != string(must(json.Marshal(y))) {
			t.Fatalf("%q escaped to %q, which means something else", b, safe)
		}
	})
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
