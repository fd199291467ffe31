package gateway

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
)

// The checkers below are written from each provider's documented rules
// for tool parameter schemas, independently of the cleaner: a cleaned
// schema must pass its target's checker.

type checker func(schema map[string]any) []string

var checkers = map[Target]checker{
	TargetAnthropic:    checkAnthropic,
	TargetOpenAI:       checkOpenAI,
	TargetOpenAIStrict: checkOpenAIStrict,
	TargetGemini:       checkGemini,
}

// walk visits every schema node with its path and nesting depth.
func walk(s any, path string, depth int, f func(path string, depth int, s map[string]any)) {
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	f(path, depth, m)
	if props, ok := m["properties"].(map[string]any); ok {
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walk(props[k], path+".properties."+k, depth+1, f)
		}
	}
	if it, ok := m["items"]; ok {
		walk(it, path+".items", depth+1, f)
	}
	if ap, ok := m["additionalProperties"].(map[string]any); ok {
		walk(ap, path+".additionalProperties", depth+1, f)
	}
	for _, comb := range []string{"anyOf", "oneOf", "allOf"} {
		if br, ok := m[comb].([]any); ok {
			for i, b := range br {
				walk(b, fmt.Sprintf("%s.%s[%d]", path, comb, i), depth+1, f)
			}
		}
	}
	for _, defs := range []string{"$defs", "definitions"} {
		if d, ok := m[defs].(map[string]any); ok {
			for k, v := range d {
				walk(v, path+"."+defs+"."+k, depth+1, f)
			}
		}
	}
}

// checkAnthropic: Claude's tools take input_schema, a JSON Schema whose
// root has type "object"; the API refuses oneOf, allOf and anyOf at the
// top level. References are not resolved remotely, so none may remain.
func checkAnthropic(s map[string]any) []string {
	var p []string
	if s["type"] != "object" {
		p = append(p, "root: type must be \"object\"")
	}
	for _, k := range []string{"oneOf", "allOf", "anyOf"} {
		if _, ok := s[k]; ok {
			p = append(p, "root: "+k+" is not supported at the top level")
		}
	}
	walk(s, "", 0, func(path string, _ int, m map[string]any) {
		if ref, ok := m["$ref"].(string); ok && (len(ref) == 0 || ref[0] != '#') {
			p = append(p, path+": remote $ref")
		}
	})
	return p
}

// checkOpenAI: function parameters (without strict) are a JSON Schema
// object; the root must have type "object" and no anyOf, oneOf, allOf,
// enum or not; an array schema must declare items.
func checkOpenAI(s map[string]any) []string {
	var p []string
	if s["type"] != "object" {
		p = append(p, "root: type must be \"object\"")
	}
	for _, k := range []string{"oneOf", "allOf", "anyOf", "enum", "not"} {
		if _, ok := s[k]; ok {
			p = append(p, "root: "+k+" is not permitted at the top level")
		}
	}
	walk(s, "", 0, func(path string, _ int, m map[string]any) {
		if hasType(m, "array") && m["items"] == nil {
			p = append(p, path+": array schema missing items")
		}
	})
	return p
}

// Structured outputs (strict): the supported types; the keywords it
// accepts; every object closed with every property required; root an
// object, not anyOf; at most 10 levels of nesting and 5000 properties;
// at most 1000 enum values in all.
var strictTypes = []string{"string", "number", "boolean", "integer", "object", "array", "null"}
var strictAllowed = []string{"type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "description", "title", "$defs", "$ref"}

func checkOpenAIStrict(s map[string]any) []string {
	var p []string
	if s["type"] != "object" {
		p = append(p, "root: must be an object")
	}
	if _, ok := s["anyOf"]; ok {
		p = append(p, "root: must not be anyOf")
	}
	props, enums := 0, 0
	walk(s, "", 0, func(path string, depth int, m map[string]any) {
		if depth > 10 {
			p = append(p, path+": more than 10 levels of nesting")
		}
		for k := range m {
			if !slices.Contains(strictAllowed, k) {
				p = append(p, path+": keyword "+k+" is not supported in strict mode")
			}
		}
		if m["type"] == nil && m["anyOf"] == nil && m["enum"] == nil && m["const"] == nil && m["$ref"] == nil {
			p = append(p, path+": no type")
		}
		for _, t := range typesOf(m) {
			if !slices.Contains(strictTypes, t) {
				p = append(p, path+": type "+t)
			}
		}
		if e, ok := m["enum"].([]any); ok {
			enums += len(e)
		}
		if hasType(m, "object") {
			if m["additionalProperties"] != false {
				p = append(p, path+": additionalProperties must be false")
			}
			pr, _ := m["properties"].(map[string]any)
			props += len(pr)
			req, _ := m["required"].([]any)
			if len(req) != len(pr) {
				p = append(p, path+": every property must be required")
			}
			for _, r := range req {
				if n, _ := r.(string); pr[n] == nil {
					p = append(p, path+": required names a missing property")
				}
			}
		}
		if hasType(m, "array") && m["items"] == nil {
			p = append(p, path+": array without items")
		}
	})
	if props > 5000 {
		p = append(p, "more than 5000 properties")
	}
	if enums > 1000 {
		p = append(p, "more than 1000 enum values")
	}
	return p
}

// Gemini function declarations take an OpenAPI 3.0 Schema subset: type
// (one of STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT; any case),
// format, description, nullable, enum (for strings), items, properties,
// required, minItems, maxItems, minimum, maximum. No $ref, $schema,
// additionalProperties, oneOf/allOf, nor anyOf inside items; every
// property typed; an OBJECT needs non-empty properties (a function
// without parameters leaves them out, so the root may be empty);
// parameter names start with a letter or "_" and hold [A-Za-z0-9_], at
// most 64.
var geminiAllowed = []string{"type", "format", "description", "nullable", "enum", "items", "properties", "required", "minItems", "maxItems", "minimum", "maximum"}
var geminiTypes = []string{"string", "number", "integer", "boolean", "array", "object"}
var geminiParam = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

func checkGemini(s map[string]any) []string {
	var p []string
	walk(s, "", 0, func(path string, depth int, m map[string]any) {
		for k := range m {
			if !slices.Contains(geminiAllowed, k) {
				p = append(p, path+": field "+k+" is not in the Schema subset")
			}
		}
		t, ok := m["type"].(string)
		if !ok || !slices.Contains(geminiTypes, t) {
			p = append(p, fmt.Sprintf("%s: type %v", path, m["type"]))
		}
		props, _ := m["properties"].(map[string]any)
		if t == "object" && len(props) == 0 && depth > 0 {
			p = append(p, path+": properties should be non-empty for OBJECT type")
		}
		for name := range props {
			if depth == 0 && !geminiParam.MatchString(name) {
				p = append(p, path+": parameter name "+name)
			}
		}
		if req, ok := m["required"].([]any); ok {
			for _, r := range req {
				if n, _ := r.(string); props[n] == nil {
					p = append(p, path+": required names a missing property")
				}
			}
		}
		if t == "array" && m["items"] == nil {
			p = append(p, path+": array without items")
		}
		if e, ok := m["enum"].([]any); ok {
			if t != "string" {
				p = append(p, path+": enum on a non-string")
			}
			for _, v := range e {
				if _, isStr := v.(string); !isStr {
					p = append(p, path+": non-string enum value")
				}
			}
		}
		if f, ok := m["format"].(string); ok && !slices.Contains(geminiFormats[t], f) {
			p = append(p, path+": format "+f)
		}
		if n, ok := m["nullable"]; ok && n != true {
			p = append(p, path+": nullable must be true when present")
		}
	})
	return p
}

func typesOf(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			s, _ := e.(string)
			out = append(out, s)
		}
		return out
	}
	return nil
}

func hasType(m map[string]any, t string) bool { return slices.Contains(typesOf(m), t) }

func decodeSchema(b []byte) (map[string]any, error) {
	var m map[string]any
	err := json.Unmarshal(b, &m)
	return m, err
}
