package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var decodeSeeds = []string{
	`{}`, `[]`, `{"a":1,"b":[true,false,null,"x",-1.5e3,{"c":{}}],"a":2}`, ` {"k\u00e9y":"v\n"} `,
	`"s"`, `12345678901234567890123`, `[[],[[]]]`, "{\"bad\":\"\xff\"}", `{"a":{"b":{"c":[1,"2",{"d":null}]}}}`,
	`{"a\"b" : [ 1 , "x\\" , { } , [ ] ] , "c\\\"" : "\"" }`, `[ "a" , [ "b" , [ "c\u0022" ] ] ]`, "[1,\n2\t,\r3]",
	`{"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"roots":{"listChanged":true}}}`,
}

// reference decodes as json.Decoder with UseNumber.
func referenceAny(b []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return nil, false
	}
	return v, true
}

func checkDecodeAny(t *testing.T, b []byte) {
	t.Helper()
	if !Valid(b) {
		return // DecodeAny's input is valid JSON
	}
	want, ok := referenceAny(b)
	if !ok {
		t.Fatalf("encoding/json rejects valid %q", b)
	}
	got, ok := DecodeAny(b)
	if !ok {
		t.Fatalf("DecodeAny(%.80q) failed", b)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("DecodeAny(%.80q) differs (-encoding/json +DecodeAny):\n%s", b, diff)
	}
}

// checkDecodeAnyFloat: DecodeAnyFloat agrees with json.Unmarshal into an
// interface value, and fails where it fails (a number out of float64's
// range).
func checkDecodeAnyFloat(t *testing.T, b []byte) {
	t.Helper()
	if !Valid(b) {
		return
	}
	var want any
	werr := json.Unmarshal(b, &want)
	got, ok := DecodeAnyFloat(b)
	switch {
	case werr != nil && ok:
		t.Fatalf("DecodeAnyFloat(%.80q) = %v, encoding/json fails: %v", b, got, werr)
	case werr == nil && !ok:
		t.Fatalf("DecodeAnyFloat(%.80q) failed, encoding/json decodes %v", b, want)
	}
	if diff := cmp.Diff(want, got); werr == nil && diff != "" {
		t.Fatalf("DecodeAnyFloat(%.80q) differs (-encoding/json +DecodeAnyFloat):\n%s", b, diff)
	}
}

func TestDecodeAny(t *testing.T) {
	for _, s := range append(decodeSeeds, floatSeeds...) {
		checkDecodeAny(t, []byte(s))
		checkDecodeAnyFloat(t, []byte(s))
	}
}

// floatSeeds are numbers float64 holds inexactly, or not at all.
var floatSeeds = []string{
	`{"sum":3}`, `[1e999]`, `{"a":-1e-400}`, `[0.1,1e308,-0,12345678901234567890123,4.9e-324]`, `{"x":[1E+2,2e-2]}`,
}

func FuzzDecodeAny(f *testing.F) {
	for _, s := range append(decodeSeeds, floatSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecodeAny(t, b)
		checkDecodeAnyFloat(t, b)
	})
}
