package gateway

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The arguments shown for approval are what is sent, read plainly: no
// character can make them read otherwise (a right-to-left override
// turning "rm -rf /tmp/x" around, a line break starting a line of text
// of the model's own), and no model can bury the question.
func TestApprovalArguments(t *testing.T) {
	for _, tc := range []struct {
		name, send, want string
	}{
		{"compact", "{ \"path\" : \"/x\" ,\n \"n\": 1 }", `{"path":"/x","n":1}`},
		{"none", "", `{}`},
		{"bidi override", `{"cmd":"x` + "\u202e" + `gpj.exe"}`, `{"cmd":"x\u202egpj.exe"}`},
		{"zero width", `{"p":"a` + "\u200b" + `b"}`, `{"p":"a\u200bb"}`},
		{"line separator", `{"p":"a` + "\u2028" + `b"}`, `{"p":"a\u2028b"}`},
		{"C1 control", `{"p":"a` + "\u0085" + `b"}`, `{"p":"a\u0085b"}`},
		{"tag character", `{"p":"a` + "\U000E0041" + `"}`, `{"p":"a\udb40\udc41"}`},
		{"escapes kept", `{"p":"a\nb\"c"}`, `{"p":"a\nb\"c"}`},
		{"plain unicode", `{"p":"Grüße, 世界"}`, `{"p":"Grüße, 世界"}`},
	} {
		got := approvalArguments(json.RawMessage(tc.send))
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
		// Still the same JSON value.
		if tc.send != "" {
			var a, b any
			if json.Unmarshal([]byte(tc.send), &a) != nil || json.Unmarshal([]byte(got), &b) != nil || !jsonEqual(a, b) {
				t.Errorf("%s: %s does not decode to the value of %s", tc.name, got, tc.send)
			}
		}
	}

	long := `{"p":"` + strings.Repeat("é", 3000) + `"}`
	got := approvalArguments(json.RawMessage(long))
	if !utf8.ValidString(got) || !strings.HasPrefix(got, `{"p":"éé`) || !strings.Contains(got, "more bytes not shown") ||
		len(got) > maxApprovalArguments+64 {
		t.Errorf("long arguments: %d bytes, %q…", len(got), got[:min(len(got), 40)])
	}
}

func FuzzApprovalArguments(f *testing.F) {
	f.Add([]byte(`{"cmd":"x` + "\u202e" + `"}`))
	f.Add([]byte(`{"p":"` + strings.Repeat("\u2028", 800) + `"}`))
	f.Fuzz(func(t *testing.T, send []byte) {
		if !json.Valid(send) {
			return
		}
		got := approvalArguments(send)
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8: %q", got)
		}
		for _, r := range got {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
				t.Fatalf("%U shown raw in %q", r, got)
			}
		}
		if len(got) > maxApprovalArguments+64 {
			t.Fatalf("%d bytes shown", len(got))
		}
		if !strings.Contains(got, "more bytes not shown") {
			var a, b any
			if json.Unmarshal(send, &a) != nil || json.Unmarshal([]byte(got), &b) != nil || !jsonEqual(a, b) {
				t.Fatalf("%q shown as %q, another value", send, got)
			}
		}
	})
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
