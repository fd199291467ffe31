package jsonscan

// Plain reports whether encoding/json writes s between quotes as it is:
// printable ASCII without the quote, the backslash and the characters it
// escapes for HTML. Encoders that write such a string themselves, to skip
// encoding/json's reflection on a hot path, produce its bytes exactly.
func Plain(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}
