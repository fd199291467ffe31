package gateway

import (
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
	return dupIn(raw, "")
}

func dupIn(v []byte, where string) string {
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '{':
		var seen []string
		found := ""
		_ = jsonscan.MembersBytes(v, func(k, mv []byte) bool {
			key := string(k)
			if slices.Contains(seen, key) {
				found = where + "." + key
				return false
			}
			seen = append(seen, key)
			if d := dupIn(mv, where+"."+key); d != "" {
				found = d
				return false
			}
			return true
		})
		return found
	case '[':
		found, i := "", 0
		_ = jsonscan.Elements(v, func(e []byte) bool {
			if d := dupIn(e, where+"["+strconv.Itoa(i)+"]"); d != "" {
				found = d
				return false
			}
			i++
			return true
		})
		return found
	}
	return ""
}
