package mcphttp

import (
	"math"
	"strconv"
	"testing"
)

// FuzzParseEventID checks that an event id parses only as eventID
// spells it, so that no two spellings name the same event: leading
// zeros, signs and spaces are refused, and a number beyond int gives
// math.MaxInt, past any event a stream issues.
func FuzzParseEventID(f *testing.F) {
	for _, s := range []string{"0_0", "0_1", "abc_12", "a_b_3", "s_05", "s_+5", "s_-0", "s_-1", "s_ 5", "s_5 ", "s_", "_5", "s_9223372036854775807", "s_9223372036854775808", "s_99999999999999999999999", "s_0x10", "s_1e3", "s_١"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		stream, n, ok := parseEventID(s)
		if !ok {
			return
		}
		if stream == "" || n < 0 {
			t.Fatalf("%q: stream %q, event %d", s, stream, n)
		}
		es := &eventStream{id: stream}
		if n == math.MaxInt {
			d := s[len(stream)+1:]
			if _, err := strconv.Atoi(d); err == nil && d != strconv.Itoa(math.MaxInt) {
				t.Fatalf("%q: MaxInt for an int in range", s)
			}
			return
		}
		if back := es.eventID(n); back != s {
			t.Fatalf("%q parses as event %d of %q, spelled %q", s, n, stream, back)
		}
	})
}
