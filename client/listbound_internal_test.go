package client

import (
	"encoding/json"
	"testing"
)

// FuzzPageItems: the items a page is charged for (before it is decoded)
// are at least those encoding/json then decodes, so that no page's items
// escape the count (pageItems may count more: every top-level array, and
// every copy of a duplicated member, where encoding/json keeps the last).
func FuzzPageItems(f *testing.F) {
	for _, s := range []string{
		`{"tools":[{},{},{}]}`,
		`{"tools":[],"nextCursor":"x"}`,
		`{"tools":[{"name":"a","icons":[{},{}]}],"_meta":{"a":[1,2]}}`,
		`{"tools":[1],"tools":[2,3]}`,
		`{"resources":[null,{"uri":"x:"} , {}] , "x":"[,,]"}`,
		`{"prompts":[[],[[]],"]"]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var members map[string]json.RawMessage
		if json.Unmarshal(raw, &members) != nil {
			return // the transport passes only valid JSON; a list result is an object
		}
		var want int64
		for _, v := range members {
			var items []json.RawMessage
			if json.Unmarshal(v, &items) == nil {
				want += int64(len(items))
			}
		}
		if got := pageItems(raw); got < want {
			t.Fatalf("pageItems(%s) = %d, but it holds %d items", raw, got, want)
		}
	})
}
