package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	bigpkg "math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// TestMultipleOfArguments: jsonschema-go divides in float64, so 0.29 was
// not a multiple of 0.01 to it, and an integer past 2^53 under multipleOf
// was refused unjudged. The facade judges multipleOf on the literals
// where the schema names the location; where a branch decides (anyOf),
// the exact answer decides too (TestMultipleOfExactUnderCombinators).
func TestMultipleOfArguments(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "in", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"c":{"type":"number","multipleOf":0.01},
		"n":{"type":"integer","multipleOf":5},
		"l":{"type":"array","items":{"multipleOf":0.1}},
		"a":{"allOf":[{"multipleOf":0.5},{"multipleOf":0.3}]},
		"g":{"anyOf":[{"multipleOf":0.01},{"type":"string"}]}},
		"additionalProperties":{"multipleOf":1e-3}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
		})
	f := start(t, &Options{Servers: map[string]*mcp.Server{"in": s}, Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	for _, c := range []struct {
		args  string
		want  Code
		words string // in the refusal
	}{
		{`{"c":0.29}`, CodeOK, ""},
		{`{"c":1.1}`, CodeOK, ""},
		{`{"c":-0.07}`, CodeOK, ""},
		{`{"c":29e-2}`, CodeOK, ""},
		{`{"c":0.295}`, CodeInvalidArguments, "not a multiple of 0.01"},
		{`{"c":0.2900000000000000001}`, CodeInvalidArguments, "not a multiple"},
		{`{"n":18446744073709551615}`, CodeOK, ""},
		{`{"n":9007199254740995}`, CodeOK, ""},
		{`{"n":18446744073709551614}`, CodeInvalidArguments, "not a multiple of 5"},
		{`{"n":9007199254740993}`, CodeInvalidArguments, "not a multiple"},
		{`{"l":[0.3,0.7]}`, CodeOK, ""},
		{`{"l":[0.3,0.35]}`, CodeInvalidArguments, "l[1]"},
		{`{"a":1.5}`, CodeOK, ""},
		{`{"a":0.9}`, CodeInvalidArguments, "not a multiple of 0.5"},
		{`{"other":0.007}`, CodeOK, ""},
		{`{"other":0.0071}`, CodeInvalidArguments, "other"},
		{`{"g":0.5}`, CodeOK, ""},
		{`{"g":"x"}`, CodeOK, ""},
		{`{"g":0.29}`, CodeOK, ""},
		{`{"g":0.295}`, CodeInvalidArguments, "anyOf"},
	} {
		res, code := f.call(t, "in__t", json.RawMessage(c.args))
		if code != c.want || !strings.Contains(res.TextOf(), c.words) {
			t.Errorf("%s: %s %q, want %s and %q", c.args, code, res.TextOf(), c.want, c.words)
		}
	}
}

// TestMultipleOfOutput: the same for structuredContent and the output
// schema; what passes is forwarded as written.
func TestMultipleOfOutput(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "out", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"sc":{"type":"string"}}}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"p":{"multipleOf":0.01},"n":{"multipleOf":7}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ SC string }
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: json.RawMessage(args.SC)}, nil
		})
	f := start(t, &Options{Servers: map[string]*mcp.Server{"out": s}, Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	for sc, want := range map[string]Code{
		`{"p":0.29}`:                 CodeOK,
		`{"p":0.295}`:                CodeOutputSchema,
		`{"n":9007199254740995}`:     CodeOK, // 7 × 1286742750677285
		`{"n":9007199254740993}`:     CodeOutputSchema,
		`{"n":18446744073709551614}`: CodeOK, // 7 × 2635249153387078802
	} {
		code, fwd := f.rawCall(t, "out__t", map[string]any{"sc": sc})
		if code != want {
			t.Errorf("%s: %s, want %s", sc, code, want)
		}
		if code == CodeOK && fwd != sc {
			t.Errorf("%s forwarded as %s", sc, fwd)
		}
	}
}

// decimalLiteral matches the JSON numbers the reference reads.
var decimalLiteral = regexp.MustCompile(`^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$`)

// decimalOf reads a JSON number literal as digits × 10^exp, with integer
// arithmetic only: the reference of FuzzMultipleOf, apart from big.Rat.
func decimalOf(s string) (*bigpkg.Int, int, bool) {
	m := decimalLiteral.FindStringSubmatch(s)
	if m == nil {
		return nil, 0, false
	}
	exp := 0
	if m[4] != "" {
		e, err := strconv.Atoi(m[4])
		if err != nil || e > 400 || e < -400 {
			return nil, 0, false
		}
		exp = e
	}
	d, ok := new(bigpkg.Int).SetString(m[1]+m[2]+m[3], 10)
	return d, exp - len(m[3]), ok
}

// referenceMultiple says whether inst is a multiple of div, both
// literals, by scaling both to integers of one power of ten.
func referenceMultiple(inst, div string) (multiple, ok bool) {
	a, ea, ok1 := decimalOf(inst)
	b, eb, ok2 := decimalOf(div)
	if !ok1 || !ok2 || b.Sign() <= 0 {
		return false, false
	}
	e := min(ea, eb)
	ten := bigpkg.NewInt(10)
	a.Mul(a, new(bigpkg.Int).Exp(ten, bigpkg.NewInt(int64(ea-e)), nil))
	b.Mul(b, new(bigpkg.Int).Exp(ten, bigpkg.NewInt(int64(eb-e)), nil))
	return new(bigpkg.Int).Rem(a, b).Sign() == 0, true
}

// FuzzMultipleOf checks the facade's multipleOf against the reference:
// where it judges (a property), its verdict is the literals'; where it
// leaves the divisor to jsonschema-go (anyOf), every number it lets
// through gets the literals' verdict from the validator.
func FuzzMultipleOf(f *testing.F) {
	for _, p := range [][2]string{{"0.29", "0.01"}, {"0.295", "0.01"}, {"18446744073709551615", "5"}, {"9007199254740993", "3"},
		{"1.1", "0.1"}, {"0.3", "0.1"}, {"-0.07", "0.01"}, {"1e300", "1e-300"}, {"12", "1.5"}, {"0", "0.7"}, {"7", "0.00000000000000000001"},
		{"4.35", "1.45"}, {"1E2", "2.5e1"}, {"0.1", "3"}, {"5e-324", "5e-324"}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, inst, div string) {
		if len(inst) > 60 || len(div) > 60 {
			return
		}
		want, ok := referenceMultiple(inst, div)
		if !ok {
			return
		}
		if _, _, err := exactNumber(inst); err != nil {
			return // refused as it is decoded
		}
		args := `{"x":` + inst + `}`
		if _, _, err := decodeExact([]byte(args), "argument", nil); err != nil {
			return // not JSON, or refused as it is decoded
		}
		_, m := compileMultiples([]byte(`{"type":"object","properties":{"x":{"multipleOf":` + div + `}}}`))
		if m == nil || m.root == nil {
			return // a divisor not read exactly
		}
		switch _, err := m.check([]byte(args), "argument"); {
		case errors.Is(err, errInexact):
		case (err == nil) != want:
			t.Fatalf("%s multipleOf %s: %v, the reference says %v", inst, div, err, want)
		}
		// Under anyOf, oneOf, not and allOf below them, the exact answer
		// decides too.
		for _, sc := range []string{`{"anyOf":[{"multipleOf":` + div + `}]}`, `{"oneOf":[{"multipleOf":` + div + `},{"type":"string"}]}`,
			`{"not":{"not":{"multipleOf":` + div + `}}}`, `{"anyOf":[{"allOf":[{"multipleOf":` + div + `}]}]}`} {
			switch err := judgeMultiple(`{"type":"object","properties":{"x":`+sc+`}}`, args); {
			case errors.Is(err, errInexact):
				// Only a number not read exactly, or an integer of 2^53
				// or more that float64 divides otherwise, is refused so.
				if _, big, nerr := exactNumber(inst); nerr == nil && !big {
					if _, ok := isMultiple(inst, mustRat(t, div)); ok {
						t.Fatalf("%s against %s: refused as inexact: %v", inst, sc, err)
					}
				}
			case (err == nil) != want:
				t.Fatalf("%s against %s: %v, the reference says %v", inst, sc, err, want)
			}
		}
	})
}

// judgeMultiple judges args against schema as the pipeline does: the
// facade's multipleOf check, then jsonschema-go, against the schema made
// exact for args when float64 would answer otherwise. A refusal of
// jsonschema-go wraps errNotMultiple.
func judgeMultiple(schema, args string) error {
	stripped, m := compileMultiples([]byte(schema))
	r, err := compileSchema(stripped, false)
	if err != nil {
		return err
	}
	if m != nil {
		fix, err := m.check([]byte(args), "argument")
		if err != nil {
			return err
		}
		if fix != nil {
			if r, _, err = m.exactSchema(fix, false); err != nil {
				return err
			}
		}
	}
	v, _, err := decodeExact([]byte(args), "argument", nil)
	if err != nil {
		return err
	}
	if err := r.Validate(v); err != nil {
		return fmt.Errorf("%w: %v", errNotMultiple, err)
	}
	return nil
}

func mustRat(t *testing.T, s string) *bigpkg.Rat {
	r, ok := new(bigpkg.Rat).SetString(s)
	if !ok {
		t.Fatalf("%s is not a number", s)
	}
	return r
}

// TestMultipleOfLocations: which divisors the facade takes out of a
// schema and judges, and which it leaves and guards.
func TestMultipleOfLocations(t *testing.T) {
	for _, c := range []struct {
		schema, args string
		want         error // nil, errNotMultiple or errInexact
	}{
		// A property named multipleOf is no divisor.
		{`{"properties":{"multipleOf":{"type":"number"}}}`, `{"multipleOf":0.3}`, nil},
		{`{"prefixItems":[{"multipleOf":0.1}],"items":{"multipleOf":0.01}}`, `[0.3,0.29]`, nil},
		{`{"prefixItems":[{"multipleOf":0.1}],"items":{"multipleOf":0.01}}`, `[0.35]`, errNotMultiple},
		{`{"prefixItems":[{"multipleOf":0.1}],"items":{"multipleOf":0.01}}`, `[0.3,0.295]`, errNotMultiple},
		{`{"properties":{"a":{"type":"number"}},"additionalProperties":{"multipleOf":0.5}}`, `{"a":0.3,"b":1.5}`, nil},
		{`{"properties":{"a":{"type":"number"}},"additionalProperties":{"multipleOf":0.5}}`, `{"b":0.3}`, errNotMultiple},
		// An allOf branch's additionalProperties is judged against that
		// branch's properties, not the parent's.
		{`{"properties":{"a":{}},"allOf":[{"additionalProperties":{"multipleOf":2}}]}`, `{"a":3}`, errNotMultiple},
		// Beside patternProperties, additionalProperties is left and guarded.
		{`{"patternProperties":{"^a":{"multipleOf":0.1}},"additionalProperties":{"multipleOf":0.1}}`, `{"b":0.3}`, nil},
		{`{"patternProperties":{"^a":{"multipleOf":0.1}},"additionalProperties":{"multipleOf":0.1}}`, `{"b":0.35}`, errNotMultiple},
		{`{"patternProperties":{"^a":{"multipleOf":0.1}},"additionalProperties":{"multipleOf":0.1}}`, `{"b":0.5}`, nil},
		// The guard of a branch holds the numbers below it only.
		{`{"properties":{"g":{"anyOf":[{"multipleOf":0.01}]},"h":{}}}`, `{"h":0.29}`, nil},
		{`{"properties":{"g":{"anyOf":[{"multipleOf":0.01}]},"h":{}}}`, `{"g":[0.29]}`, nil},
		{`{"properties":{"g":{"anyOf":[{"multipleOf":0.01}]},"h":{}}}`, `{"g":0.295}`, errNotMultiple},
		// A $ref into the schema: nothing is taken out, every number is
		// guarded.
		{`{"properties":{"x":{"$ref":"#/properties/y"},"y":{"multipleOf":0.01}}}`, `{"x":0.29}`, nil},
		{`{"properties":{"x":{"$ref":"#/properties/y"},"y":{"multipleOf":0.01}}}`, `{"x":0.291}`, errNotMultiple},
		{`{"properties":{"x":{"$ref":"#/properties/y"},"y":{"multipleOf":0.01}}}`, `{"x":0.5}`, nil},
		{`{"$defs":{"c":{"multipleOf":0.01}},"properties":{"x":{"$ref":"#/$defs/c"},"y":{"multipleOf":0.01}}}`, `{"y":0.29}`, nil},
		{`{"$defs":{"c":{"multipleOf":0.01}},"properties":{"x":{"$ref":"#/$defs/c"},"y":{"multipleOf":0.01}}}`, `{"x":0.29}`, nil},
		{`{"$defs":{"c":{"multipleOf":0.01}},"properties":{"x":{"$ref":"#/$defs/c"},"y":{"multipleOf":0.01}}}`, `{"x":0.295}`, errNotMultiple},
		{`{"$defs":{"c":{"multipleOf":0.01}},"properties":{"x":{"$ref":"#/$defs/c"},"y":{"multipleOf":0.01}}}`, `{"y":0.5,"x":0.25}`, nil},
	} {
		err := judgeMultiple(c.schema, c.args)
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s against %s: %v, want %v", c.args, c.schema, err, c.want)
		}
	}
}

// TestMultipleOfKeywordCase: jsonschema-go matches keywords without case,
// as encoding/json does; so must the facade, or a divisor under "AnyOf"
// would be neither judged nor guarded, and integers past 2^53 would reach
// jsonschema-go's float64 division.
func TestMultipleOfKeywordCase(t *testing.T) {
	for _, c := range []struct {
		schema, args string
		want         error
	}{
		{`{"Properties":{"x":{"MultipleOf":0.01}}}`, `{"x":0.29}`, nil},
		{`{"Properties":{"x":{"MultipleOf":0.01}}}`, `{"x":0.295}`, errNotMultiple},
		{`{"properties":{"x":{"AnyOf":[{"multipleOf":0.01}]}}}`, `{"x":0.29}`, nil},
		{`{"properties":{"x":{"AnyOf":[{"multipleOf":0.01}]}}}`, `{"x":0.295}`, errNotMultiple},
		{`{"properties":{"x":{"anyOf":[{"multiple\u004ff":0.01}]}}}`, `{"x":0.29}`, nil},
		{`{"properties":{"x":{"anyOf":[{"MULTIPLEOF":0.01}],"AllOf":[{"type":"number"}]}}}`, `{"x":0.29}`, nil},
		{`{"properties":{"x":{"anyOf":[{"MULTIPLEOF":0.01,"AllOf":[{"type":"number"}]}]}}}`, `{"x":"s"}`, errNotMultiple},
	} {
		err := judgeMultiple(c.schema, c.args)
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s against %s: %v, want %v", c.args, c.schema, err, c.want)
		}
	}
	if numbersExact([]byte(`{"AnyOf":[{"MULTIPLEOF":3}]}`), false) {
		t.Error("a multipleOf in another case is not seen")
	}
}

// TestMultipleOfExactUnderCombinators: a divisor under anyOf, oneOf, not
// (or allOf below them) stays with jsonschema-go, which divides in
// float64; where float64 and the literals disagreed the facade refused
// the arguments as ones it cannot check exactly. Now the exact answer
// decides there as at the top: the schema is made to answer exactly for
// the numbers of the call.
func TestMultipleOfExactUnderCombinators(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "in", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"any":{"anyOf":[{"multipleOf":0.1}]},
		"one":{"oneOf":[{"multipleOf":0.1},{"multipleOf":0.3}]},
		"not":{"not":{"multipleOf":0.1}},
		"all":{"anyOf":[{"allOf":[{"multipleOf":0.01},{"minimum":0}]},{"type":"string"}]},
		"tiny":{"anyOf":[{"multipleOf":1e-300}]},
		"huge":{"anyOf":[{"multipleOf":1e300}]},
		"list":{"items":{"anyOf":[{"multipleOf":0.1},{"type":"string"}]}}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
		})
	f := start(t, &Options{Servers: map[string]*mcp.Server{"in": s}, Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	for _, c := range []struct {
		args  string
		want  Code
		words string
	}{
		{`{"any":0.3}`, CodeOK, ""}, // 0.3/0.1 is 2.9999999999999996 in float64
		{`{"any":0.7}`, CodeOK, ""},
		{`{"any":0.35}`, CodeInvalidArguments, "anyOf"},
		{`{"any":0.30000000000000000001}`, CodeInvalidArguments, ""},
		{`{"one":0.3}`, CodeInvalidArguments, "oneOf"}, // a multiple of both, exactly
		{`{"one":0.2}`, CodeOK, ""},
		{`{"not":0.3}`, CodeInvalidArguments, "not"},
		{`{"not":0.35}`, CodeOK, ""},
		{`{"all":0.29}`, CodeOK, ""},
		{`{"all":-0.29}`, CodeInvalidArguments, ""},
		{`{"all":"x"}`, CodeOK, ""},
		{`{"tiny":3e-300}`, CodeOK, ""},
		{`{"tiny":3.5e-300}`, CodeInvalidArguments, ""},
		{`{"tiny":1e-400}`, CodeInvalidArguments, "too small"},
		{`{"huge":3e300}`, CodeInvalidArguments, ""}, // an integer past 64 bits: not judged
		{`{"huge":1e999999999}`, CodeInvalidArguments, "range"},
		{`{"list":[0.3,"x",0.7,0.3]}`, CodeOK, ""},
		{`{"list":[0.3,0.35]}`, CodeInvalidArguments, "anyOf"},
		// Two numbers that read as one float64 with different answers:
		// jsonschema-go cannot tell them apart.
		{`{"list":[0.7,0.70000000000000000001]}`, CodeInvalidArguments, "cannot tell them apart"},
		{`{"list":[0.70000000000000000001]}`, CodeInvalidArguments, "anyOf"},
		{`{"any":-0}`, CodeOK, ""},
	} {
		begin := time.Now()
		res, code := f.call(t, "in__t", json.RawMessage(c.args))
		if code != c.want || !strings.Contains(res.TextOf(), c.words) {
			t.Errorf("%s: %s %q, want %s and %q", c.args, code, res.TextOf(), c.want, c.words)
		}
		if d := time.Since(begin); d > 5*time.Second {
			t.Errorf("%s took %v", c.args, d)
		}
	}
}

// TestMultipleOfExactSchemaBound: making a schema exact compiles it again
// on the call; an upstream's schema is bounded only by its message, so
// past maxExactSchemaBytes a call that needs it is refused as inexact,
// as before, and the rest are judged as usual.
func TestMultipleOfExactSchemaBound(t *testing.T) {
	big := `{"type":"object","examples":["` + strings.Repeat("x", maxExactSchemaBytes) + `"],"properties":{"x":{"anyOf":[{"multipleOf":0.1}]}}}`
	if err := judgeMultiple(big, `{"x":0.3}`); !errors.Is(err, errInexact) {
		t.Errorf("0.3 against a %d-byte schema: %v, want a refusal as inexact", len(big), err)
	}
	if err := judgeMultiple(big, `{"x":0.5}`); err != nil {
		t.Errorf("0.5 against a %d-byte schema: %v", len(big), err)
	}
}
