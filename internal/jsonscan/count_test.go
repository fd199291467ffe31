package jsonscan

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"testing"
)

// FuzzCount: Count finds the nodes encoding/json's tokenizer finds in the
// text (duplicate keys included, which decoding would merge).
func FuzzCount(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `1`, `"a"`, `null`,
		`{"a":[{},{"b":"c"},[1,true,null]],"d":"\"}"}`,
		` [ "x" , { "y" : -1.5e3 } , [] ] `,
		`{"icons":[{},{},{}],"_meta":{"a":[{}]}}`,
		`{"":[{}],"":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		var want Counts
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		// Per open container: whether it is an object, and whether its
		// next token is a key.
		type open struct{ object, key bool }
		var stack []open
		var keys int64
		scalarBytes := 0
		value := func() {
			if n := len(stack); n > 0 {
				if stack[n-1].object {
					stack[n-1].key = true
				} else {
					want.Elements++
				}
			}
		}
		for {
			tok, err := d.Token()
			if err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			switch tok {
			case json.Delim('{'):
				want.Objects++
				value()
				stack = append(stack, open{object: true, key: true})
				continue
			case json.Delim('['):
				want.Arrays++
				value()
				stack = append(stack, open{})
				continue
			case json.Delim('}'), json.Delim(']'):
				stack = stack[:len(stack)-1]
				continue
			}
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].key {
				want.Members++
				stack[n-1].key = false
				keys++
				continue
			}
			switch x := tok.(type) {
			case string:
				want.Strings++
			case json.Number:
				want.Scalars++
				scalarBytes += len(x)
			case bool:
				want.Scalars++
				scalarBytes += len(strconv.FormatBool(x))
			default: // null
				want.Scalars++
				scalarBytes += len("null")
			}
			value()
		}
		got := Count(b)
		want.StringBytes, want.KeyBytes, want.EscapedKeyBytes = got.StringBytes, got.KeyBytes, got.EscapedKeyBytes
		want.ScalarBytes = int64(scalarBytes)
		// Each key is at least its quotes; the keys are part of the strings.
		if got.KeyBytes < 2*keys || got.KeyBytes > got.StringBytes || got.EscapedKeyBytes > got.KeyBytes {
			t.Fatalf("Count(%s): %d keys in %d bytes (%d escaped) of %d bytes of strings", b, keys, got.KeyBytes, got.EscapedKeyBytes, got.StringBytes)
		}
		if got != want {
			t.Fatalf("Count(%s) = %+v, want %+v", b, got, want)
		}
	})
}
