package jsonscan

import "bytes"

// LoneSurrogate reports whether a string in b, valid JSON, escapes half
// of a UTF-16 surrogate pair without the other half ("\ud800" alone, or
// a low half first). The grammar allows it; decoders disagree on what it
// means: encoding/json reads U+FFFD, JavaScript keeps the lone half,
// others refuse the message. A value judged as one string and passed on
// as bytes reaches the next decoder as another.
func LoneSurrogate(b []byte) bool {
	i := bytes.IndexByte(b, '\\')
	if i < 0 {
		return false
	}
	// Outside strings valid JSON has no backslash, so every one starts
	// an escape.
	for i < len(b) {
		if b[i] != '\\' {
			i++
			continue
		}
		r := getu4(b[i:])
		switch {
		case r < 0:
			i += 2 // \n, \", \\, ...
		case 0xd800 <= r && r < 0xdc00:
			lo := rune(-1)
			if i+6 < len(b) {
				lo = getu4(b[i+6:])
			}
			if lo < 0xdc00 || lo >= 0xe000 {
				return true
			}
			i += 12
		case 0xdc00 <= r && r < 0xe000:
			return true // a low half with no high half before it
		default:
			i += 6
		}
	}
	return false
}
