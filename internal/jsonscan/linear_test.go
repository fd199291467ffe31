package jsonscan

import (
	"strings"
	"testing"
	"time"
)

// Walking a message must cost time linear in its size, whatever its
// shape: a peer controls every byte, and these functions run on the read
// loop of every connection. The bounds below are hundreds of times what
// linear code takes, and a small fraction of what the quadratic code took
// (a search for a backslash ran to the end of the message for every
// string; DecodeAny skipped each nested value once per level).
func TestWalksAreLinear(t *testing.T) {
	many := []byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":[` + strings.Repeat(`"a",`, 1<<20) + `"a"]}`)
	deep := []byte(`{"_":` + strings.Repeat(`{"a":`, 9990) + `[` + strings.Repeat(`"a",`, 1<<18) + `"a"]` + strings.Repeat(`}`, 9991))
	if !Valid(many) || !Valid(deep) {
		t.Fatal("test input is not valid JSON")
	}
	for _, c := range []struct {
		name string
		walk func()
	}{
		{"MembersBytes over 1M strings", func() { _ = MembersBytes(many, func(k, v []byte) bool { return true }) }},
		{"Skip over 1M strings", func() { Skip(many, 0) }},
		{"DecodeAny 10000 deep", func() { DecodeAny(deep) }},
		{"DecodeAny 1M strings", func() { DecodeAny(many) }},
		{"Count 10000 deep", func() { Count(deep) }},
		{"Count 1M strings", func() { Count(many) }},
	} {
		start := time.Now()
		c.walk()
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s took %v", c.name, d)
		}
	}
}
