package mcp

import (
	"reflect"
	"testing"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// FuzzJSONEqual checks that jsonEqual says what reflect.DeepEqual says of
// values decoded from JSON, which is what it replaces.
func FuzzJSONEqual(f *testing.F) {
	for _, p := range [][2]string{
		{`{"name":"a","version":"1"}`, `{"name":"a","version":"1"}`},
		{`{"roots":{}}`, `{"roots":{"listChanged":true}}`},
		{`{"a":[1,2,{"b":null}]}`, `{"a":[1,2,{"b":null}]}`},
		{`{"a":[1,2]}`, `{"a":[1,2.0]}`},
		{`{"a":1}`, `{"b":1}`},
		{`{}`, `[]`},
		{`null`, `{}`},
		{`"x"`, `"x"`},
		{`true`, `false`},
		{`[]`, `[null]`},
	} {
		f.Add([]byte(p[0]), []byte(p[1]))
	}
	f.Fuzz(func(t *testing.T, x, y []byte) {
		if !jsonscan.Valid(x) || !jsonscan.Valid(y) {
			return // DecodeAny trusts its input
		}
		a, ok1 := jsonscan.DecodeAny(x)
		b, ok2 := jsonscan.DecodeAny(y)
		if !ok1 || !ok2 {
			return
		}
		if got, want := jsonEqual(a, b), reflect.DeepEqual(a, b); got != want {
			t.Fatalf("jsonEqual(%s, %s) = %v, reflect.DeepEqual %v", x, y, got, want)
		}
		if !jsonEqual(a, a) && reflect.DeepEqual(a, a) {
			t.Fatalf("jsonEqual(%s, itself) = false", x)
		}
	})
}
