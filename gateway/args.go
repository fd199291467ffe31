package gateway

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// duplicateMember returns the location of the first object member whose
// name repeats an earlier one of the same object (names compared after
// unescaping), or "". Parsers disagree on duplicates (most keep the last,
// some the first): arguments the facade checked must mean the same to the
// upstream, so they are refused. raw must be valid JSON.
func duplicateMember(raw []byte) string {
	return dupIn(raw)
}

// dupIn returns the location, relative to v, of the first repeated
// member in v. It runs on every call: the location is built only on the
// way back from a find, and keys are compared as the bytes MembersBytes
// gives (which alias v unless decoded), so that a clean argument object
// costs no allocation.
func dupIn(v []byte) string {
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '{':
		var buf [16][]byte
		seen := buf[:0]
		found := ""
		_ = jsonscan.MembersBytes(v, func(k, mv []byte) bool {
			if slices.ContainsFunc(seen, func(s []byte) bool { return bytes.Equal(s, k) }) {
				found = "." + string(k)
				return false
			}
			seen = append(seen, k)
			if d := dupIn(mv); d != "" {
				found = "." + string(k) + d
				return false
			}
			return true
		})
		return found
	case '[':
		found, i := "", 0
		_ = jsonscan.Elements(v, func(e []byte) bool {
			if d := dupIn(e); d != "" {
				found = "[" + strconv.Itoa(i) + "]" + d
				return false
			}
			i++
			return true
		})
		return found
	}
	return ""
}
