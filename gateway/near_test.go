package gateway

import (
	"context"
	"encoding/json"
	"errors"
	bigpkg "math/big"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// TestFractionArguments: a fraction that float64 cannot tell from a
// number of the input schema is not judged as that float64.
func TestFractionArguments(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "in", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"x":{"type":"number","maximum":0.1},
		"i":{"type":"integer","minimum":1.00000000000000000001},
		"c":{"const":0.5}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
		})
	f := start(t, &Options{Servers: map[string]*mcp.Server{"in": s}, Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	for args, want := range map[string]Code{
		`{"x":0.10000000000000000001}`: CodeInvalidArguments, // float64 reads it as 0.1, the maximum
		`{"x":0.1}`:                    CodeOK,
		`{"x":0.10}`:                   CodeOK,
		`{"x":0.05}`:                   CodeOK,
		`{"x":0.2}`:                    CodeInvalidArguments,
		`{"i":1}`:                      CodeInvalidArguments, // the minimum reads as 1
		`{"i":2}`:                      CodeOK,
		`{"c":0.5}`:                    CodeOK,
		`{"c":5e-1}`:                   CodeOK,
		`{"c":0.50000000000000000001}`: CodeInvalidArguments,
	} {
		if code, _ := f.rawCall(t, "in__t", json.RawMessage(args)); code != want {
			t.Errorf("%s: %s, want %s", args, code, want)
		}
	}
}

// TestFractionOutput: the same for structuredContent and the output
// schema.
func TestFractionOutput(t *testing.T) {
	f := start(t, &Options{HTTP: rawUpstream(t), Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	for sc, want := range map[string]Code{
		`{"f":0.10000000000000000001}`:  CodeOutputSchema,
		`{"f":0.1}`:                     CodeOK,
		`{"f":1e-1}`:                    CodeOK,
		`{"f":0.099}`:                   CodeOK,
		`{"z":-1.00000000000000000001}`: CodeOutputSchema,
	} {
		res := `{"content":[],"structuredContent":` + sc + `}`
		code, fwd := f.rawCall(t, "raw__checked", map[string]any{"raw": res})
		if code != want {
			t.Errorf("%s: %s, want %s", sc, code, want)
		}
		if code == CodeOK && fwd != sc {
			t.Errorf("%s forwarded as %s", sc, fwd)
		}
	}
}

// TestJudgeableLong: a number read exactly only at a cost is refused
// when it matters, and its refusal is short.
func TestJudgeableLong(t *testing.T) {
	sn := numbersOf([]byte(`{"maximum":0.1,"minimum":1e-400}`))
	long := "0.1"
	for len(long) < 5000 {
		long += "0000000000"
	}
	long += "1"
	n, _, err := exactNumber(long)
	if err != nil {
		t.Fatal(err)
	}
	if err := sn.judgeable(long, n); !errors.Is(err, errInexact) || len(err.Error()) > 300 {
		t.Errorf("long: %v", err)
	}
	if err := sn.judgeable("0", int64(0)); !errors.Is(err, errInexact) {
		t.Errorf("0 against a schema's 1e-400: %v", err)
	}
	if err := sn.judgeable("0.5", 0.5); err != nil {
		t.Errorf("0.5: %v", err)
	}
}

// FuzzJudgeable: when judgeable lets a number through, jsonschema-go
// compares it with a schema's number as their literals compare, for
// every keyword that compares: minimum, maximum, their exclusive forms
// and const.
func FuzzJudgeable(f *testing.F) {
	for _, p := range [][2]string{{"0.1", "0.10000000000000000001"}, {"0.1", "0.1"}, {"1.00000000000000000001", "1"},
		{"9007199254740992", "9007199254740993"}, {"0.5", "0.49999999999999999999"}, {"-0", "0"}, {"1e-400", "0"},
		{"0.1", "1e-1"}, {"5e-324", "4e-324"}, {"1", "1.0"}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, bound, inst string) {
		if len(bound) > 60 || len(inst) > 60 {
			return
		}
		judgeAgainst(t, bound, inst)
		// Numbers that float64 cannot tell from bound are where the
		// validator goes wrong; the mutator rarely finds them alone.
		if strings.Contains(bound, ".") && !strings.ContainsAny(bound, "eE") {
			judgeAgainst(t, bound, bound+"00000000000000000001")
			judgeAgainst(t, bound, strings.TrimRight(bound, "0123456789")+"0"+inst)
		}
	})
}

// judgeAgainst is FuzzJudgeable's check of one number against one bound.
func judgeAgainst(t *testing.T, bound, inst string) {
	t.Helper()
	{
		var b, i any
		if json.Unmarshal([]byte(bound), &b) != nil || json.Unmarshal([]byte(inst), &i) != nil {
			return
		}
		if _, ok := b.(float64); !ok {
			return
		}
		if _, ok := i.(float64); !ok {
			return
		}
		n, _, err := exactNumber(inst)
		if err != nil {
			return
		}
		sn := numbersOf([]byte(`{"maximum":` + bound + `}`))
		if sn.judgeable(inst, n) != nil {
			return
		}
		want, ok1 := new(bigpkg.Rat).SetString(inst)
		lim, ok2 := new(bigpkg.Rat).SetString(bound)
		if !ok1 || !ok2 {
			return // not read exactly here either (1e-400 is, but costs)
		}
		cmp := want.Cmp(lim)
		for kw, pass := range map[string]bool{"minimum": cmp >= 0, "maximum": cmp <= 0, "exclusiveMinimum": cmp > 0,
			"exclusiveMaximum": cmp < 0, "const": cmp == 0} {
			r, err := compileSchema(json.RawMessage(`{"`+kw+`":`+bound+`}`), false)
			if err != nil {
				return // a bound jsonschema-go does not take
			}
			if got := r.Validate(n) == nil; got != pass {
				t.Fatalf("%s %s against %s (read as %v): validator says %v, the literals %v", kw, bound, inst, n, got, pass)
			}
		}
	}
}

// TestJudgeableRange: of the schema's numbers that read as one float64,
// the least and the greatest decide.
func TestJudgeableRange(t *testing.T) {
	sn := numbersOf([]byte(`{"enum":[0.1,0.10000000000000000001,0.09999999999999999999,0.1,1.00000000000000000001,1]}`))
	for s, ok := range map[string]bool{
		"0.1":                     false, // the float64 0.1 equals none of them exactly but one
		"0.100000000000000000015": false,
		"0.2":                     true,
		"1":                       false,
		"2":                       true,
	} {
		n, _, err := exactNumber(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := sn.judgeable(s, n); (err == nil) != ok {
			t.Errorf("%s: %v", s, err)
		}
	}
	one := numbersOf([]byte(`{"minimum":0.1,"maximum":0.10}`))
	if err := one.judgeable("0.1", 0.1); err != nil {
		t.Errorf("0.1 against 0.1 and 0.10: %v", err)
	}
	if err := one.judgeable("0.10000000000000000001", 0.1); err == nil {
		t.Error("0.10000000000000000001 against 0.1 let through")
	}
}
