package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// reference splits an object with encoding/json.
func reference(b []byte) (map[string]string, []string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return nil, nil, false
	}
	out := map[string]string{}
	for k, v := range m {
		out[k] = string(v)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.Token()
	var keys []string
	for dec.More() {
		t, _ := dec.Token()
		keys = append(keys, t.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	return out, keys, true
}

func check(t *testing.T, b []byte) {
	if !json.Valid(b) {
		return
	}
	want, wantKeys, isObject := reference(b)
	got := map[string]string{}
	var keys []string
	err := Members(b, func(k string, v []byte) bool {
		got[k] = string(v)
		keys = append(keys, k)
		return true
	})
	if !isObject {
		if err == nil {
			t.Fatalf("%q: no error for a non-object", b)
		}
		return
	}
	if err != nil {
		t.Fatalf("%q: %v", b, err)
	}
	// encoding/json keeps the last of duplicate keys, as a map does.
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%q: members differ (-want +got):\n%s", b, diff)
	}
	if diff := cmp.Diff(wantKeys, keys); diff != "" {
		t.Fatalf("%q: order differs:\n%s", b, diff)
	}
}

func TestMembers(t *testing.T) {
	for _, s := range []string{
		`{}`, ` { } `, `{"a":1}`, `{"a" : "x\"y\\" , "b":[1,{"c":"]"}],"d":null}`,
		`{"jsonrpc":"2.0","id":-1e3,"method":"m","params":{"x":[true,false]}}`,
		`{"\u0069d":1}`, `{"a":"\\"}`, `[1]`, `"s"`, `{"a":{"b":{"c":{}}},"e":-0.5E+2}`,
		`{"a":1,"a":2}`,
	} {
		check(t, []byte(s))
	}
	if v, ok := Member([]byte(`{"type":"text","text":"x"}`), "type"); !ok || string(v) != `"text"` {
		t.Fatalf("Member: %q %v", v, ok)
	}
	if _, ok := Member([]byte(`{"text":"x"}`), "type"); ok {
		t.Fatal("Member found a missing key")
	}
}

func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":"\"","b":[{}]}`, `{"x":{"y":"}"}}`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { check(t, b) })
}

func BenchmarkMemberType8MiB(b *testing.B) {
	big, _ := json.Marshal(map[string]string{"type": "text", "text": string(bytes.Repeat([]byte("x"), 8<<20))})
	b.SetBytes(int64(len(big)))
	for b.Loop() {
		if _, ok := Member(big, "type"); !ok {
			b.Fatal("no type")
		}
	}
}

func TestMemberLastDuplicateWins(t *testing.T) {
	if v, _ := Member([]byte(`{"type":"a","type":"b"}`), "type"); string(v) != `"b"` {
		t.Fatalf("got %s, want the last duplicate as encoding/json", v)
	}
}

func TestNestsDeeper(t *testing.T) {
	for _, tc := range []struct {
		in    string
		limit int
		want  bool
	}{
		{`1`, 0, false},
		{`{}`, 0, true},
		{`{}`, 1, false},
		{`[[{"a":[1]}]]`, 4, false},
		{`[[{"a":[1]}]]`, 3, true},
		{`["[[[[", "\"[[["]`, 1, false}, // brackets in strings do not count
		{`[{},{},{},[]]`, 2, false},     // siblings do not add up
		{`"unterminated [[[`, 0, false},
	} {
		if got := NestsDeeper([]byte(tc.in), tc.limit); got != tc.want {
			t.Errorf("NestsDeeper(%s, %d) = %v, want %v", tc.in, tc.limit, got, tc.want)
		}
	}
}
