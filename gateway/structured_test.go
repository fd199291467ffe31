package gateway

import (
	"bytes"
	"encoding/json"
	bigpkg "math/big"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/winbridge/winbridge/mcp"
)

// FuzzCheckStructured: structuredContent the facade lets through against
// exactOutSchema is forwarded as bytes that encode unchanged, read one
// way only, mean what the server sent (numbers as written), and keep
// the schema's bounds exactly, not as float64 does.
func FuzzCheckStructured(f *testing.F) {
	for _, s := range []string{`{"n":9007199254740993}`, `{"n":9007199254740992}`, `{"f":0.10000000000000000001}`, `{"f":0.1}`,
		`{"z":-0}`, `{"z":-0.99999999999999999999}`, `{"n":"x","n":1}`, `{"s":"<&>"}`, `{"n":1e400}`, `{"f":1E-1 }`, `[1,{"a":2}]`} {
		f.Add(s)
	}
	out, err := compileSchema(json.RawMessage(exactOutSchema), false)
	if err != nil {
		f.Fatal(err)
	}
	e := &exposed{output: out, outBigExact: bigExact([]byte(exactOutSchema)), outNear: numbersOf([]byte(exactOutSchema))}
	bounds := map[string]func(*bigpkg.Rat) bool{
		"n": func(r *bigpkg.Rat) bool { return r.IsInt() && r.Cmp(bigpkg.NewRat(1<<53, 1)) <= 0 },
		"f": func(r *bigpkg.Rat) bool { return r.Cmp(bigpkg.NewRat(1, 10)) <= 0 },
		"z": func(r *bigpkg.Rat) bool { return r.Cmp(bigpkg.NewRat(-1, 1)) > 0 },
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 2000 || !json.Valid([]byte(s)) {
			return
		}
		res, code, err := checkStructured(&mcp.CallToolResult{StructuredContent: json.RawMessage(s)}, e, 1<<20)
		if err != nil {
			if code == CodeOK {
				t.Fatalf("%s: refused with code ok: %v", s, err)
			}
			return
		}
		fw, ok := res.StructuredContent.(json.RawMessage)
		if !ok {
			t.Fatalf("%s: forwarded as %T", s, res.StructuredContent)
		}
		if again, _ := json.Marshal(fw); !bytes.Equal(again, fw) {
			t.Fatalf("%s: forwarded %s, encoded again as %s", s, fw, again)
		}
		if !utf8.Valid(fw) || dupIn(fw) != "" {
			t.Fatalf("%s: forwarded %s", s, fw)
		}
		if !reflect.DeepEqual(useNumber(t, s), useNumber(t, string(fw))) {
			t.Fatalf("%s: forwarded %s, which means something else", s, fw)
		}
		m, _ := useNumber(t, string(fw)).(map[string]any)
		for k, ok := range bounds {
			n, isNum := m[k].(json.Number)
			if !isNum {
				continue
			}
			r, rok := new(bigpkg.Rat).SetString(string(n))
			if rok && !ok(r) {
				t.Fatalf("%s: %s = %s passed the schema", s, k, n)
			}
		}
	})
}

// useNumber decodes s as encoding/json does with UseNumber.
func useNumber(t *testing.T, s string) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}
