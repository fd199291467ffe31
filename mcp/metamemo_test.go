package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"sync"
	"testing"
)

const memoMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},` +
	`"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"sampling":{}},` +
	`"list":[1,"two",{"three":3},[4]],"n":12345678901234567890,"null":null}`

// jsonDecodeMeta is what encoding/json makes of s, the reference.
func jsonDecodeMeta(t *testing.T, s string) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// scribble changes every map and slice of a decoded value.
func scribble(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			scribble(x)
			v[k] = "changed"
		}
		v["added"] = true
	case []any:
		for i, x := range v {
			scribble(x)
			v[i] = "changed"
		}
	}
}

// A _meta decoded through the memo is what encoding/json decodes, and a
// caller that changes every part of its Meta changes no other decoding,
// the remembered one included.
func TestMetaMemoCopies(t *testing.T) {
	want := jsonDecodeMeta(t, memoMeta)
	for i := range 5 { // past remembering it, then from the memo
		var m Meta
		if err := json.Unmarshal([]byte(memoMeta), &m); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(map[string]any(m), want) {
			t.Fatalf("decoding %d: %#v\nwant %#v", i, m, want)
		}
		scribble(map[string]any(m))
	}
}

// Concurrent decodings of one _meta, each changed by its caller, race on
// nothing (run with -race).
func TestMetaMemoConcurrentChanges(t *testing.T) {
	want := jsonDecodeMeta(t, memoMeta)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				var m Meta
				if err := json.Unmarshal([]byte(memoMeta), &m); err != nil {
					t.Error(err)
					return
				}
				if !reflect.DeepEqual(map[string]any(m), want) {
					t.Errorf("decoded %#v", m)
					return
				}
				scribble(map[string]any(m))
			}
		})
	}
	wg.Wait()
}

// _meta that differs each time is never remembered, and texts that
// share a slot still decode to themselves; as do those too large to
// remember, and invalid ones take encoding/json's error.
func TestMetaMemoVarying(t *testing.T) {
	for i := range 100 {
		s := `{"progressToken":` + strconv.Itoa(i) + `,"k":"v"}`
		for range 2 {
			var m Meta
			if err := json.Unmarshal([]byte(s), &m); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(map[string]any(m), jsonDecodeMeta(t, s)) {
				t.Fatalf("%s: %#v", s, m)
			}
		}
	}
	big := `{"k":"` + string(bytes.Repeat([]byte("x"), metaMemoMax)) + `"}`
	for range 3 {
		var m Meta
		if err := json.Unmarshal([]byte(big), &m); err != nil || len(m["k"].(string)) != metaMemoMax {
			t.Fatalf("large _meta: %v", err)
		}
	}
	for _, bad := range []string{`[1]`, `"s"`, `{"a":}`, "{\"a\":\"\xff\"}"} {
		for range 3 {
			var m Meta
			err := json.Unmarshal([]byte(bad), &m)
			var ref map[string]any
			refErr := json.Unmarshal([]byte(bad), &ref)
			if (err == nil) != (refErr == nil) {
				t.Fatalf("%q: error %v, encoding/json %v", bad, err, refErr)
			}
		}
	}
}

// A repeated _meta costs its maps and slices, not its strings and
// numbers.
func TestMetaMemoAllocs(t *testing.T) {
	b := []byte(memoMeta)
	var m Meta
	for range 3 {
		if err := m.UnmarshalJSON(b); err != nil {
			t.Fatal(err)
		}
	}
	memo := testing.AllocsPerRun(100, func() { m.UnmarshalJSON(b) })
	fresh := testing.AllocsPerRun(100, func() { decodeMetaFresh(b) })
	if memo >= fresh/2 {
		t.Fatalf("from the memo %v allocations, fresh %v", memo, fresh)
	}
}

// Texts used together stay remembered together, whatever their hashes:
// the second decoding of each onwards comes from the memo.
func TestMetaMemoTogether(t *testing.T) {
	texts := make([][]byte, metaMemoSlots/2)
	for i := range texts {
		texts[i] = []byte(`{"together":` + strconv.Itoa(i) + `,"m":{"k":"v"}}`)
	}
	var m Meta
	for range 3 { // remembered on the second round
		for _, b := range texts {
			if err := m.UnmarshalJSON(b); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, b := range texts {
		fresh := testing.AllocsPerRun(20, func() { decodeMetaFresh(b) })
		memo := testing.AllocsPerRun(20, func() {
			for _, o := range texts {
				m.UnmarshalJSON(o)
			}
		}) / float64(len(texts))
		if memo >= fresh {
			t.Fatalf("%s: %v allocations per decoding from the memo, %v fresh", b, memo, fresh)
		}
	}
}

// cloneJSON copies every map and slice of a decoded value: a copy
// scribbled over leaves the original as it was, nested arrays of objects
// included, and a nil object copies as an empty one.
func TestCloneJSONDeep(t *testing.T) {
	orig := jsonDecodeMeta(t, `{"a":{"b":[{"c":1},[2,{"d":[]}]],"e":{}},"f":"g","h":null}`)
	want := jsonDecodeMeta(t, `{"a":{"b":[{"c":1},[2,{"d":[]}]],"e":{}},"f":"g","h":null}`)
	c := cloneJSON(orig)
	if !reflect.DeepEqual(c, any(orig)) {
		t.Fatalf("copy %#v, want %#v", c, orig)
	}
	scribble(c)
	if !reflect.DeepEqual(orig, want) {
		t.Fatalf("the original changed with its copy: %#v", orig)
	}
	if m, ok := cloneJSON(map[string]any(nil)).(map[string]any); !ok || m == nil {
		t.Fatalf("nil object copied as %#v", m)
	}
}
