package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/winbridge/winbridge/internal/jsonwalk"
)

// Target is a model provider whose rules the listed input schemas follow.
type Target string

// The targets.
const (
	// TargetAnthropic: Claude's input_schema. The root is an object schema
	// without anyOf, oneOf or allOf at the top.
	TargetAnthropic Target = "anthropic"
	// TargetOpenAI: function-calling parameters without strict mode. The
	// root is an object schema without anyOf, oneOf, allOf, enum or not at
	// the top; every array has items.
	TargetOpenAI Target = "openai"
	// TargetOpenAIStrict: structured outputs' strict mode. Every object is
	// closed (additionalProperties false) with every property required; an
	// optional property admits null instead, and the facade removes a
	// null it receives for such a property before validating; only the
	// documented keywords remain.
	TargetOpenAIStrict Target = "openai-strict"
	// TargetGemini: the OpenAPI 3.0 subset of function declarations: one
	// type per schema (null as nullable), no references, no
	// additionalProperties, no anyOf, every property typed, objects with
	// properties.
	TargetGemini Target = "gemini"
	// TargetNone lists the upstream's schema as it is.
	TargetNone Target = "none"
)

func targetNames() []string {
	return []string{string(TargetAnthropic), string(TargetOpenAI), string(TargetOpenAIStrict), string(TargetGemini), string(TargetNone)}
}

// Bounds of the cleaning work: an upstream's references can expand into
// exponentially many nodes.
const (
	maxSchemaNodes = 10000
	maxSchemaDepth = 32
	// strictMaxDepth is structured outputs' nesting limit.
	strictMaxDepth = 10
)

// errUnsupported marks a schema a target cannot express; the tool is
// withheld from that target's surface.
var errUnsupported = errors.New("not expressible for this target")

// nullPlan says where, in the arguments, a null stands for "absent": the
// properties openai-strict made required-and-nullable that were optional
// and not nullable upstream.
type nullPlan struct {
	strip bool                 // a null here is removed from its object
	props map[string]*nullPlan // by property name
	items *nullPlan
}

func (p *nullPlan) empty() bool {
	return p == nil || (!p.strip && len(p.props) == 0 && p.items.empty())
}

// cleanSchema rewrites an upstream input schema for target. It fails when
// the schema is not an object schema, uses a reference it cannot resolve
// locally, is too large, or cannot be expressed for the target.
func cleanSchema(raw json.RawMessage, target Target) (json.RawMessage, *nullPlan, error) {
	if target == TargetNone {
		return raw, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, fmt.Errorf("input schema: %w", err)
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("input schema: want an object, got %s", jsonwalk.TypeName(doc))
	}
	c := &cleaner{target: target, root: root}
	out, plan, err := c.schema(root, 0, true)
	if err != nil {
		return nil, nil, err
	}
	m, _ := out.(map[string]any)
	if m == nil || m["type"] != "object" {
		return nil, nil, fmt.Errorf("input schema: the root must be of type \"object\"")
	}
	if _, ok := m["properties"]; !ok {
		m["properties"] = map[string]any{}
		if target == TargetOpenAIStrict {
			m["required"] = []any{}
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, nil, err
	}
	if plan.empty() {
		plan = nil
	}
	return b, plan, nil
}

type cleaner struct {
	target Target
	root   map[string]any
	nodes  int
	refs   []string // references being expanded: a repeat is recursion
}

// resolve finds a local reference ("#", "#/$defs/x", any JSON pointer
// into the document).
func (c *cleaner) resolve(ref string) (map[string]any, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, fmt.Errorf("reference %q is not local", ref)
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return nil, fmt.Errorf("reference %q: %w", ref, err)
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return nil, fmt.Errorf("reference %q: anchors are not supported", ref)
	}
	cur, ok := walkPointer(c.root, frag)
	if !ok {
		return nil, fmt.Errorf("reference %q does not resolve", ref)
	}
	m, ok := cur.(map[string]any)
	if !ok {
		if b, isBool := cur.(bool); isBool && b {
			return map[string]any{}, nil
		}
		return nil, fmt.Errorf("reference %q does not resolve to a schema", ref)
	}
	return m, nil
}

// Keywords each target keeps; others are dropped. nil keeps everything
// but the reference and meta keywords.
var (
	strictKeywords  = []string{"type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "description", "title"}
	geminiKeywords  = []string{"type", "format", "description", "nullable", "enum", "items", "properties", "required", "minItems", "maxItems", "minimum", "maximum"}
	metaKeywords    = []string{"$schema", "$id", "$defs", "definitions", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$comment", "$vocabulary"}
	geminiParamName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)
	geminiFormats   = map[string][]string{"string": {"enum", "date-time"}, "integer": {"int32", "int64"}, "number": {"float", "double"}}
)

// schema cleans one schema. Booleans: true is any value, false none.
func (c *cleaner) schema(v any, depth int, root bool) (any, *nullPlan, error) {
	c.nodes++
	if c.nodes > maxSchemaNodes || depth > maxSchemaDepth {
		return nil, nil, fmt.Errorf("input schema: more than %d nodes or %d levels once references are expanded", maxSchemaNodes, maxSchemaDepth)
	}
	if c.target == TargetOpenAIStrict && depth > strictMaxDepth {
		return nil, nil, fmt.Errorf("input schema: more than %d levels of nesting: %w", strictMaxDepth, errUnsupported)
	}
	var in map[string]any
	switch s := v.(type) {
	case bool:
		if !s {
			return nil, nil, fmt.Errorf("input schema: a false schema admits no value: %w", errUnsupported)
		}
		in = map[string]any{}
	case map[string]any:
		in = s
	default:
		return nil, nil, fmt.Errorf("input schema: a schema must be an object or a boolean, not %s", jsonwalk.TypeName(v))
	}
	// Inline a reference, merging the referring schema's own keywords
	// over it (2020-12 allows siblings of $ref).
	if ref, ok := in["$ref"].(string); ok {
		if slices.Contains(c.refs, ref) {
			// Recursion: the target has no way to say it without
			// references, which not every target takes. Cut here with
			// a value the model sends JSON-encoded; the upstream's own
			// schema still decides what is valid.
			return c.recursionCut(), nil, nil
		}
		target, err := c.resolve(ref)
		if err != nil {
			return nil, nil, fmt.Errorf("input schema: %w", err)
		}
		merged := map[string]any{}
		for k, v := range target {
			merged[k] = v
		}
		for k, v := range in {
			if k != "$ref" {
				merged[k] = v
			}
		}
		delete(merged, "$ref")
		c.refs = append(c.refs, ref)
		defer func() { c.refs = c.refs[:len(c.refs)-1] }()
		if r2, ok := target["$ref"]; ok {
			merged["$ref"] = r2
		}
		// The same depth: an inlined reference is no deeper for the
		// target. Chains end at a repeat (c.refs), fans at maxSchemaNodes.
		return c.schema(merged, depth, root)
	}
	out := map[string]any{}
	for k, v := range in {
		if !slices.Contains(metaKeywords, k) {
			out[k] = v
		}
	}
	if err := c.mergeAllOf(out, depth); err != nil {
		return nil, nil, err
	}
	if t, ok := out["type"]; ok {
		if err := checkTypeKeyword(t, true); err != nil {
			return nil, nil, err
		}
	}
	if _, ok := out["oneOf"]; ok && c.target != TargetNone {
		// Listing oneOf as anyOf is wider; validation against the
		// upstream's schema keeps it exact.
		if _, has := out["anyOf"]; !has {
			out["anyOf"] = out["oneOf"]
		}
		delete(out, "oneOf")
	}
	if root {
		// No provider takes a combinator at the root.
		delete(out, "anyOf")
		delete(out, "not")
		if out["type"] == nil {
			out["type"] = "object"
		}
	}
	delete(out, "not")
	for _, k := range []string{"if", "then", "else", "dependentSchemas", "dependentRequired", "dependencies", "patternProperties", "unevaluatedProperties", "unevaluatedItems", "propertyNames", "contains", "prefixItems"} {
		if c.target == TargetOpenAIStrict || c.target == TargetGemini {
			delete(out, k)
		}
	}

	plan := &nullPlan{}
	// Children.
	if props, ok := out["properties"].(map[string]any); ok {
		np := make(map[string]any, len(props))
		for name, ps := range props {
			cs, cp, err := c.schema(ps, depth+1, false)
			if err != nil {
				if errors.Is(err, errUnsupported) && !isRequired(out, name) {
					continue // an optional property the target cannot take is left out
				}
				return nil, nil, err
			}
			if cs == nil {
				continue
			}
			np[name] = cs
			if !cp.empty() {
				if plan.props == nil {
					plan.props = map[string]*nullPlan{}
				}
				plan.props[name] = cp
			}
		}
		out["properties"] = np
	} else {
		delete(out, "properties")
	}
	if items, ok := out["items"]; ok {
		if _, isArr := items.([]any); isArr {
			// Tuple form (draft-07): list any items.
			items = true
		}
		cs, cp, err := c.schema(items, depth+1, false)
		if err != nil {
			return nil, nil, err
		}
		out["items"] = cs
		plan.items = cp
	}
	if ap, ok := out["additionalProperties"].(map[string]any); ok {
		cs, _, err := c.schema(ap, depth+1, false)
		if err != nil {
			return nil, nil, err
		}
		out["additionalProperties"] = cs
	}
	for _, comb := range []string{"anyOf"} {
		if branches, ok := out[comb].([]any); ok {
			nb := make([]any, 0, len(branches))
			for _, b := range branches {
				cs, _, err := c.schema(b, depth+1, false)
				if err != nil {
					return nil, nil, err
				}
				nb = append(nb, cs)
			}
			out[comb] = nb
		} else {
			delete(out, comb)
		}
	}

	switch c.target {
	case TargetOpenAI:
		if isType(out, "array") && out["items"] == nil {
			out["items"] = map[string]any{}
		}
	case TargetOpenAIStrict:
		return c.strict(out, plan)
	case TargetGemini:
		res, err := c.gemini(out, root)
		return res, plan, err
	}
	return out, plan, nil
}

func (c *cleaner) recursionCut() map[string]any {
	return map[string]any{"type": "string", "description": "A JSON value of the same shape as its parent (recursive), encoded as a string."}
}

func isRequired(s map[string]any, name string) bool {
	req, _ := s["required"].([]any)
	return slices.Contains(req, any(name))
}

// types returns the schema's types ("type" as a string or an array).
func types(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if str, ok := e.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

func isType(s map[string]any, t string) bool { return slices.Contains(types(s), t) }

// mergeAllOf folds allOf branches into s: types intersect loosely (the
// first wins), properties and required are united. Listing the merge
// may be wider than the conjunction; validation uses the original.
func (c *cleaner) mergeAllOf(s map[string]any, depth int) error {
	branches, ok := s["allOf"].([]any)
	delete(s, "allOf")
	if !ok {
		return nil
	}
	for _, b := range branches {
		bm, ok := b.(map[string]any)
		if !ok {
			continue
		}
		if ref, ok := bm["$ref"].(string); ok && !slices.Contains(c.refs, ref) {
			r, err := c.resolve(ref)
			if err != nil {
				return fmt.Errorf("input schema: %w", err)
			}
			bm = r
		}
		for k, v := range bm {
			switch k {
			case "properties":
				props, _ := s["properties"].(map[string]any)
				if props == nil {
					props = map[string]any{}
				}
				if bp, ok := v.(map[string]any); ok {
					for pk, pv := range bp {
						if _, exists := props[pk]; !exists {
							props[pk] = pv
						}
					}
				}
				s["properties"] = props
			case "required":
				req, _ := s["required"].([]any)
				if br, ok := v.([]any); ok {
					for _, r := range br {
						if !slices.Contains(req, r) {
							req = append(req, r)
						}
					}
				}
				s["required"] = req
			default:
				if _, exists := s[k]; !exists && !slices.Contains(metaKeywords, k) {
					s[k] = v
				}
			}
		}
	}
	return nil
}

// strict applies structured outputs' strict mode to a cleaned schema.
func (c *cleaner) strict(s map[string]any, plan *nullPlan) (any, *nullPlan, error) {
	for k := range s {
		if !slices.Contains(strictKeywords, k) {
			delete(s, k)
		}
	}
	if e, ok := s["enum"].([]any); ok && len(e) == 0 {
		return nil, nil, fmt.Errorf("input schema: an empty enum admits no value: %w", errUnsupported)
	}
	if _, hasType := s["type"]; !hasType && s["anyOf"] == nil && s["enum"] == nil && s["const"] == nil {
		switch {
		case s["properties"] != nil:
			s["type"] = "object"
		case s["items"] != nil:
			s["type"] = "array"
		default:
			// Any JSON value: strict mode cannot say it.
			return nil, nil, fmt.Errorf("input schema: an untyped value: %w", errUnsupported)
		}
	}
	if isType(s, "array") && s["items"] == nil {
		return nil, nil, fmt.Errorf("input schema: an array of untyped items: %w", errUnsupported)
	}
	if isType(s, "object") {
		props, _ := s["properties"].(map[string]any)
		if len(props) == 0 {
			if ap := s["additionalProperties"]; ap != nil && ap != false {
				// A map of free keys: strict mode closes every object.
				return nil, nil, fmt.Errorf("input schema: an object with free keys: %w", errUnsupported)
			}
			props = map[string]any{}
			s["properties"] = props
		}
		req := map[string]bool{}
		if r, ok := s["required"].([]any); ok {
			for _, n := range r {
				if str, ok := n.(string); ok {
					req[str] = true
				}
			}
		}
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
		}
		slices.Sort(names)
		all := make([]any, 0, len(names))
		for _, n := range names {
			all = append(all, n)
			if req[n] {
				continue
			}
			ps, _ := props[n].(map[string]any)
			if !admitsNull(ps) {
				props[n] = withNull(ps)
				if plan.props == nil {
					plan.props = map[string]*nullPlan{}
				}
				p := plan.props[n]
				if p == nil {
					p = &nullPlan{}
					plan.props[n] = p
				}
				p.strip = true
			}
		}
		s["required"] = all
		s["additionalProperties"] = false
	} else {
		delete(s, "additionalProperties")
		delete(s, "required")
		delete(s, "properties")
	}
	return s, plan, nil
}

func admitsNull(s map[string]any) bool {
	if isType(s, "null") {
		return true
	}
	if br, ok := s["anyOf"].([]any); ok {
		for _, b := range br {
			if bm, ok := b.(map[string]any); ok && admitsNull(bm) {
				return true
			}
		}
	}
	return false
}

// withNull widens s to admit null, as strict mode asks of optional
// properties.
func withNull(s map[string]any) map[string]any {
	if br, ok := s["anyOf"].([]any); ok {
		s["anyOf"] = append(br, map[string]any{"type": "null"})
		return s
	}
	if _, isEnum := s["enum"]; isEnum || s["const"] != nil {
		return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	}
	t := types(s)
	nt := make([]any, 0, len(t)+1)
	for _, x := range t {
		nt = append(nt, x)
	}
	s["type"] = append(nt, "null")
	return s
}

// gemini applies the OpenAPI 3.0 subset of function declarations.
func (c *cleaner) gemini(s map[string]any, root bool) (any, error) {
	nullable := false
	// anyOf: Gemini takes none inside items and is unreliable elsewhere;
	// the first non-null branch stands for the union (null as nullable).
	if br, ok := s["anyOf"].([]any); ok {
		delete(s, "anyOf")
		var pick map[string]any
		for _, b := range br {
			bm, _ := b.(map[string]any)
			if bm == nil {
				continue
			}
			if isType(bm, "null") && len(types(bm)) == 1 {
				nullable = true
				continue
			}
			if pick == nil {
				pick = bm
			}
		}
		if pick != nil {
			for k, v := range pick {
				if _, exists := s[k]; !exists || k == "type" {
					s[k] = v
				}
			}
			if pick["nullable"] == true {
				nullable = true
			}
		}
	}
	if cv, ok := s["const"]; ok {
		s["enum"] = []any{cv}
		delete(s, "const")
	}
	for k := range s {
		if !slices.Contains(geminiKeywords, k) {
			delete(s, k)
		}
	}
	// One type; null becomes nullable.
	var t string
	for _, x := range types(s) {
		if x == "null" {
			nullable = true
		} else if t == "" {
			t = x
		}
	}
	if t == "" {
		switch {
		case s["properties"] != nil:
			t = "object"
		case s["items"] != nil:
			t = "array"
		case s["enum"] != nil:
			t = "string"
		default:
			return nil, fmt.Errorf("input schema: an untyped value: %w", errUnsupported)
		}
	}
	s["type"] = t
	if nullable {
		s["nullable"] = true
	} else {
		delete(s, "nullable")
	}
	if e, ok := s["enum"].([]any); ok {
		allStrings := t == "string" && len(e) > 0
		for _, x := range e {
			if _, isStr := x.(string); !isStr {
				allStrings = false
			}
		}
		if !allStrings {
			delete(s, "enum") // Gemini takes enums of strings only
		}
	}
	if f, ok := s["format"].(string); ok && !slices.Contains(geminiFormats[t], f) {
		delete(s, "format")
	}
	switch t {
	case "object":
		props, _ := s["properties"].(map[string]any)
		if root {
			// Function parameters are named [A-Za-z_][A-Za-z0-9_]*: an
			// optional one named otherwise is left out, a required one
			// makes the tool inexpressible.
			for name := range props {
				if !geminiParamName.MatchString(name) {
					if isRequired(s, name) {
						return nil, fmt.Errorf("input schema: required parameter %q is not a name Gemini accepts: %w", name, errUnsupported)
					}
					delete(props, name)
				}
			}
		}
		if len(props) == 0 && !root {
			// A function without parameters leaves them out; a nested
			// object needs properties.
			return nil, fmt.Errorf("input schema: an object without properties: %w", errUnsupported)
		}
		if req, ok := s["required"].([]any); ok {
			kept := req[:0:0]
			for _, r := range req {
				if n, ok := r.(string); ok && props[n] != nil {
					kept = append(kept, r)
				}
			}
			if len(kept) == 0 {
				delete(s, "required")
			} else {
				s["required"] = kept
			}
		}
	case "array":
		if s["items"] == nil {
			return nil, fmt.Errorf("input schema: an array of untyped items: %w", errUnsupported)
		}
		delete(s, "properties")
		delete(s, "required")
	default:
		delete(s, "properties")
		delete(s, "required")
		delete(s, "items")
	}
	if t != "array" {
		delete(s, "minItems")
		delete(s, "maxItems")
	}
	if t != "number" && t != "integer" {
		delete(s, "minimum")
		delete(s, "maximum")
	}
	return s, nil
}

// stripNulls removes, from decoded arguments, the nulls plan marks as
// "absent". It changes only members whose schema the facade widened.
func stripNulls(v any, plan *nullPlan) {
	if plan == nil {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for name, p := range plan.props {
			mv, ok := x[name]
			if !ok {
				continue
			}
			if mv == nil && p.strip {
				delete(x, name)
				continue
			}
			stripNulls(mv, p)
		}
	case []any:
		for _, e := range x {
			stripNulls(e, plan.items)
		}
	}
}

var jsonTypeNames = []string{"null", "boolean", "object", "array", "number", "integer", "string"}

// checkTypeKeyword refuses a "type" that is not a JSON type name or a
// non-empty array of distinct ones.
func checkTypeKeyword(t any, present bool) error {
	if !present {
		return nil
	}
	switch v := t.(type) {
	case string:
		if slices.Contains(jsonTypeNames, v) {
			return nil
		}
	case []any:
		seen := map[string]bool{}
		for _, e := range v {
			s, ok := e.(string)
			if !ok || !slices.Contains(jsonTypeNames, s) || seen[s] {
				return fmt.Errorf("input schema: invalid type %v", t)
			}
			seen[s] = true
		}
		if len(v) > 0 {
			return nil
		}
	}
	return fmt.Errorf("input schema: invalid type %v", t)
}
