package jsonscan_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// FuzzPlain: a string Plain accepts is written by encoding/json as itself
// between quotes.
func FuzzPlain(f *testing.F) {
	for _, s := range []string{"", "echo", "a b", `a"b`, `a\b`, "<tag>", "a&b", "tab\t", "é", "\x7f", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !jsonscan.Plain(s) {
			return
		}
		b, err := json.Marshal(s)
		if err != nil || string(b) != strconv.Quote(s) || string(b) != `"`+s+`"` {
			t.Fatalf("Plain(%q) but encoding/json writes %s (%v)", s, b, err)
		}
	})
}
