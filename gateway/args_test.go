package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	bigpkg "math/big"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

func TestDuplicateMember(t *testing.T) {
	for raw, want := range map[string]string{
		`{"a":1,"b":2}`:                        "",
		`{"a":1,"a":2}`:                        ".a",
		`{"a":1,"\u0061":2}`:                   ".a",
		`{"x":{"y":[1,{"z":1,"z":2}]}}`:        ".x.y[1].z",
		`[{"a":1},{"b":1,"b":2}]`:              "[1].b",
		`{"p":{"q":1},"r":{"q":1}}`:            "",
		`{"a":{"a":1}}`:                        "",
		`{"k1":1,"k2":2,"k3":3,"k4":4,"k2":5}`: ".k2",
		// encoding/json fills a struct field from the last member whose
		// name equals the field's ignoring case: a Go upstream would run
		// with the second path, the facade checked the first.
		`{"path":"ok","PATH":"../secret"}`: ".PATH",
		`{"key":1,"\u212aey":2}`:           ".\u212aey", // the Kelvin sign folds to k
		`{"o":{"Name":1,"nAME":2}}`:        ".o.nAME",
		`{"a":1,"b":{"A":1}}`:              "",
	} {
		if got := duplicateMember([]byte(raw)); got != want {
			t.Errorf("%s: %q, want %q", raw, got, want)
		}
	}
	// Past the names an object's list holds, they are compared folded
	// in a map: the same finds.
	var many strings.Builder
	many.WriteString(`{"x":[0,{`)
	for i := range 40 {
		fmt.Fprintf(&many, `"k%d":%d,`, i, i)
	}
	for _, c := range []struct{ last, want string }{
		{`"K39":1`, ".x[1].K39"},
		{`"\u212a7":1`, ".x[1].\u212a7"},
		{`"k0x":1`, ""},
		{`"\u017f":1,"S":2`, ".x[1].S"},
	} {
		raw := many.String() + c.last + `}]}`
		if got := duplicateMember([]byte(raw)); got != c.want {
			t.Errorf("40 names and %s: %q, want %q", c.last, got, c.want)
		}
	}
	clean := []byte(`{"text":"hello, world","n":{"a":[1,2,{"b":true}]}}`)
	if n := testing.AllocsPerRun(100, func() { duplicateMember(clean) }); n != 0 {
		t.Errorf("%v allocations for arguments without duplicates", n)
	}
}

// TestDuplicateMemberLinear: the check reads the arguments once, however
// deep they nest or however many members an object has. Before, each
// level read all below it again (12 s of CPU for 256 KiB nested 10000
// deep), and each name was compared with all before it. The bound is
// hundreds of times what linear code takes.
func TestDuplicateMemberLinear(t *testing.T) {
	const size, depth = DefaultMaxArgumentBytes, 9990
	var wide strings.Builder
	wide.WriteString("{")
	for i := 0; wide.Len() < size; i++ {
		fmt.Fprintf(&wide, `"m%d":0,`, i)
	}
	wide.WriteString(`"end":0}`)
	var escaped strings.Builder
	escaped.WriteString("{")
	for i := 0; escaped.Len() < size; i++ {
		fmt.Fprintf(&escaped, `"\u0061%d":0,`, i)
	}
	escaped.WriteString(`"end":0}`)
	for name, raw := range map[string]string{
		"objects": `{"a":` + strings.Repeat(`{"a":`, depth-1) + `[` + strings.Repeat(`"a",`, (size-6*depth)/4) + `"a"]` + strings.Repeat(`}`, depth),
		"arrays":  strings.Repeat(`[`, depth) + strings.Repeat(`1,`, (size-2*depth)/2) + `1` + strings.Repeat(`]`, depth),
		"members": wide.String(),
		"escaped": `{` + strings.Repeat(`"\u0061":{},`, size/12) + `"b":0}`,
	} {
		start := time.Now()
		duplicateMember([]byte(raw))
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: %d bytes took %v", name, len(raw), d)
		}
	}
}

// TestBigIntegers: integers past 2^53 are judged exactly against the
// upstream's input schema, or refused when the facade cannot judge them
// exactly; what is forwarded is the bytes the model sent.
func TestBigIntegers(t *testing.T) {
	up := upstreamServer()
	var got json.RawMessage
	add := func(name, schema string) {
		up.AddTool(&mcp.Tool{Name: name, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Ptr(true)}, InputSchema: json.RawMessage(schema)},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				got = append(json.RawMessage(nil), req.Params.Arguments...)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
	}
	add("int", `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	add("max", `{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740992}},"required":["n"]}`)
	add("wide", `{"type":"object","properties":{"n":{"type":"integer","minimum":-1e19,"maximum":1e19}},"required":["n"]}`)
	add("inexactmax", `{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740995}},"required":["n"]}`)
	add("enum", `{"type":"object","properties":{"n":{"enum":[9007199254740993]}},"required":["n"]}`)
	add("even", `{"type":"object","properties":{"n":{"type":"integer","multipleOf":2}},"required":["n"]}`)
	add("nested", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer","maximum":9007199254740992}}}}`)
	f := start(t, &Options{Servers: map[string]*mcp.Server{"up": up}}, nil)
	for _, tc := range []struct {
		tool, args string
		want       Code
	}{
		{"int", `{"n":9007199254740993}`, CodeOK},
		{"int", `{"n":-9223372036854775808}`, CodeOK},
		{"int", `{"n":18446744073709551615}`, CodeOK},
		{"int", `{"n":9007199254740992.5}`, CodeInvalidArguments},     // not an integer, though float64 rounds it to one
		{"int", `{"n":1.00000000000000000001}`, CodeInvalidArguments}, // likewise
		{"int", `{"n":1.0}`, CodeOK},
		{"int", `{"n":9.007199254740993e15}`, CodeOK},
		{"int", `{"n":123456789012345678901234567890}`, CodeInvalidArguments}, // beyond 64 bits: cannot be judged exactly
		{"int", `{"n":1e400}`, CodeInvalidArguments},
		{"max", `{"n":9007199254740992}`, CodeOK},
		{"max", `{"n":9007199254740993}`, CodeInvalidArguments}, // float64 rounds it down to the maximum
		{"wide", `{"n":9223372036854775807}`, CodeOK},
		{"wide", `{"n":-9223372036854775807}`, CodeOK},
		{"inexactmax", `{"n":9007199254740996}`, CodeInvalidArguments}, // the maximum rounds up to it
		{"inexactmax", `{"n":12}`, CodeOK},
		{"enum", `{"n":9007199254740992}`, CodeInvalidArguments}, // the enum's value rounds down to it
		{"even", `{"n":9007199254740993}`, CodeInvalidArguments}, // odd, and float64 makes it even
		{"even", `{"n":4}`, CodeOK},
		{"nested", `{"a":[1,9007199254740993]}`, CodeInvalidArguments},
		{"nested", `{"a":[1,9007199254740992]}`, CodeOK},
	} {
		got = nil
		res, code := f.call(t, "up__"+tc.tool, json.RawMessage(tc.args))
		if code != tc.want {
			t.Errorf("%s %s: %s (%s), want %s", tc.tool, tc.args, code, res.TextOf(), tc.want)
			continue
		}
		if code == CodeOK && string(got) != tc.args {
			t.Errorf("%s %s: the upstream got %s", tc.tool, tc.args, got)
		}
	}
}

// TestExactNumberLong: a long literal is refused without reading it
// exactly (that costs the square of its digits), and the refusal does
// not repeat it.
func TestExactNumberLong(t *testing.T) {
	for _, s := range []string{"1." + strings.Repeat("0", 300000), "0." + strings.Repeat("9", 300000), "1" + strings.Repeat("0", 300000) + "e-299990"} {
		_, _, err := exactNumber(s)
		if !errors.Is(err, errInexact) || len(err.Error()) > 200 {
			t.Errorf("%.20s…: %.300v", s, err)
		}
	}
	if _, _, err := decodeArgs([]byte(`{"`+strings.Repeat("k", 5000)+`":1e400}`), nil); !errors.Is(err, errInexact) || len(err.Error()) > maxAuditName+200 {
		t.Errorf("long key: %.300v", err)
	}
}

// FuzzExactNumber: a number exactNumber accepts is the value written,
// exactly, and "big" says whether it is past 2^53.
func FuzzExactNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "1.0", "1e3", "9007199254740993", "-9223372036854775808", "18446744073709551615",
		"9007199254740992.5", "1.00000000000000000001", "1e400", "1e-400", "0.0e-99999999", "0E10000000000000000000", "9.007199254740993e15", "0.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var j any
		if json.Unmarshal([]byte(s), &j) != nil {
			return
		}
		if _, ok := j.(float64); !ok || len(s) > 400 {
			return
		}
		n, big, err := exactNumber(s)
		if err != nil {
			return
		}
		if v, ok := n.(float64); ok && v == 0 {
			mant, _, _ := strings.Cut(strings.ToLower(s), "e")
			if strings.ContainsAny(mant, "123456789") {
				t.Fatalf("%s reads as 0", s)
			}
			return // zero, whatever its exponent (not expanded here either)
		}
		want, ok := new(bigpkg.Rat).SetString(s)
		if !ok {
			t.Fatalf("%s accepted, not a number", s)
		}
		var got *bigpkg.Rat
		switch v := n.(type) {
		case int64:
			got = new(bigpkg.Rat).SetInt64(v)
		case uint64:
			got = new(bigpkg.Rat).SetUint64(v)
		case float64:
			got = new(bigpkg.Rat).SetFloat64(v)
			if v == math.Trunc(v) && got.Cmp(want) != 0 {
				t.Fatalf("%s reads as the integer %v", s, v)
			}
			return // fractions read as their float64
		}
		if got.Cmp(want) != 0 {
			t.Fatalf("%s reads as %v", s, n)
		}
		lim := new(bigpkg.Rat).SetInt64(maxExactFloat)
		if abs := new(bigpkg.Rat).Abs(want); big != (abs.Cmp(lim) >= 0) {
			t.Fatalf("%s: big %v", s, big)
		}
	})
}

// TestBareNumberArguments: arguments that are a bare number are refused
// as not an object, whatever the number; locating a number in them must
// not fail (the top level has no member name).
func TestBareNumberArguments(t *testing.T) {
	f := start(t, &Options{Servers: inproc(), Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	for _, a := range []string{"1e400", "9007199254740993", "5"} {
		code, _ := f.rawCall(t, "up__echo", json.RawMessage(a))
		if code != CodeInvalidArguments {
			t.Errorf("%s: %s", a, code)
		}
	}
}

func BenchmarkDuplicateMember(b *testing.B) {
	args := []byte(`{"path":"C:\\work\\notes.txt","mode":"read","options":{"encoding":"utf-8","lines":[1,2,3],"follow":true},"limit":100}`)
	b.SetBytes(int64(len(args)))
	for b.Loop() {
		if duplicateMember(args) != "" {
			b.Fatal("duplicate")
		}
	}
}
