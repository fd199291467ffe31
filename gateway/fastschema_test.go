package gateway

import (
	"encoding/json"
	"testing"
)

// flatCases are schemas of the flat shape and arguments, with the verdict
// of the full validator.
var flatCases = []struct {
	schema, args string
	valid        bool
}{
	{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":9007199254740993}`, true},
	{`{"type":"object","properties":{"n":{"type":"number"}}}`, `{"n":18446744073709551615}`, true},
	{`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`, `{"text":"x"}`, true},
	{`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`, `{}`, false},
	{`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`, `{"text":"x","more":1}`, false},
	{`{"type":"object","properties":{"text":{"type":"string"}}}`, `{"text":"x","more":1}`, true},
	{`{"type":"object","properties":{"text":{"type":"string"}}}`, `{"text":5}`, false},
	{`{"type":"object","properties":{"text":{"type":"string"}}}`, `{"text":null}`, false},
	{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":1.0}`, true},
	{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":1.5}`, false},
	{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":"5"}`, false},
	{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":1e300}`, true},
	{`{"type":"object","properties":{"n":{"type":"number"}}}`, `{"n":-0.5}`, true},
	{`{"type":"object","properties":{"n":{"type":"number"}}}`, `{"n":true}`, false},
	{`{"type":"object","properties":{"b":{"type":"boolean","description":"d"}},"required":["b","b"]}`, `{"b":false}`, true},
	{`{"type":"object","properties":{"b":{"type":"boolean"}}}`, `{"b":0}`, false},
	{`{"type":"object","properties":{"x":{}},"required":["x"]}`, `{"x":null}`, true},
	{`{"type":"object","required":["x"]}`, `{}`, false},
	{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string"}}}`, `{"a":"b"}`, true},
}

// TestFlatSchema: the flat check agrees with the full validator where it
// says valid, and leaves the rest to it; schemas of other shapes are not
// flat.
func TestFlatSchema(t *testing.T) {
	for _, c := range flatCases {
		fs := compileFlat(json.RawMessage(c.schema))
		if fs == nil {
			t.Errorf("%s is not flat", c.schema)
			continue
		}
		full, err := compileSchema(json.RawMessage(c.schema), true)
		if err != nil {
			t.Fatal(err)
		}
		var args map[string]any
		if err := json.Unmarshal([]byte(c.args), &args); err != nil {
			t.Fatal(err)
		}
		if got := full.Validate(args) == nil; got != c.valid {
			t.Errorf("%s %s: the full validator says %v, the case %v", c.schema, c.args, got, c.valid)
		}
		if got := fs.valid(args); got != c.valid {
			t.Errorf("%s %s: flat says %v, want %v", c.schema, c.args, got, c.valid)
		}
		if fs.validRaw([]byte(c.args)) && !c.valid {
			t.Errorf("%s %s: validRaw accepts what the full validator refuses", c.schema, c.args)
		}
	}
	echo := compileFlat(json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer"}},"required":["text"],"additionalProperties":false}`))
	for raw, want := range map[string]bool{
		`{"text":"hello, world"}`: true, `{"text":"x","n":-12}`: true, `{ "n" : 3 , "text" : "\u0041" }`: true,
		`{"n":3}`: false, `{"text":5}`: false, `{"text":"x","n":1.0}`: false, `{"text":"x","n":1234567890123456}`: false,
		`{"text":"x","other":1}`: false, `{"text":null}`: false, `[]`: false,
	} {
		if got := echo.validRaw([]byte(raw)); got != want {
			t.Errorf("validRaw %s: %v, want %v", raw, got, want)
		}
	}
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string","minLength":2}}}`,
		`{"type":"object","properties":{"a":{"type":["string","null"]}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`,
		`{"type":"object","additionalProperties":{"type":"string"}}`,
		`{"type":"object","properties":{"a":{"type":"array"}}}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`,
		`{"properties":{"a":{"type":"string"}}}`,
		`{"type":"object","required":[1]}`,
		`{"type":"object","properties":{"a":{"type":"string","description":5}}}`,
	} {
		if compileFlat(json.RawMessage(s)) != nil {
			t.Errorf("%s taken as flat", s)
		}
	}
}

// FuzzFlatSchema: whatever the flat check accepts, the full validator
// accepts.
func FuzzFlatSchema(f *testing.F) {
	for _, c := range flatCases {
		f.Add(c.schema, c.args)
	}
	f.Fuzz(func(t *testing.T, schema, args string) {
		fs := compileFlat(json.RawMessage(schema))
		if fs == nil {
			return
		}
		full, err := compileSchema(json.RawMessage(schema), true)
		if err != nil {
			return // withheld: never called
		}
		var v any
		if json.Unmarshal([]byte(args), &v) != nil {
			return
		}
		if m, ok := v.(map[string]any); ok && fs.validRaw([]byte(args)) && duplicateMember([]byte(args)) == "" {
			if err := full.Validate(m); err != nil {
				t.Fatalf("validRaw accepts what the full validator refuses: %s %s: %v", schema, args, err)
			}
		}
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if fs.valid(m) {
			if err := full.Validate(m); err != nil {
				t.Fatalf("flat accepts what the full validator refuses: %s %s: %v", schema, args, err)
			}
		}
		// As the pipeline decodes them: integers as int64 or uint64.
		if exact, _, err := decodeArgs([]byte(args), nil); err == nil {
			if m, ok := exact.(map[string]any); ok && fs.valid(m) {
				if err := full.Validate(m); err != nil {
					t.Fatalf("flat accepts exact numbers the full validator refuses: %s %s: %v", schema, args, err)
				}
			}
		}
	})
}
