package jsonscan

import (
	"bytes"
	"unicode/utf8"
)

// ValidMessage reports whether b is one valid JSON value in valid UTF-8, as
// a protocol message must be: Valid(b) && utf8.Valid(b). json.Valid alone
// accepts invalid UTF-8 inside strings, which encoding/json then decodes
// as U+FFFD, silently changing what the peer sent.
func ValidMessage(b []byte) bool { return Valid(b) && utf8.Valid(b) }

// HasLineBreak reports whether b holds a raw CR or LF byte. In valid JSON
// those can only be insignificant white space, which a line-delimited
// message must not carry. Two memchr-speed searches beat one pass that
// tests each byte against a set.
func HasLineBreak(b []byte) bool {
	return bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0
}
