package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	bigpkg "math/big"
	"strconv"
	"strings"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// jsonschema-go judges "multipleOf" in float64 (it divides the instance
// by the divisor and looks for a fraction): 0.29 is not a multiple of
// 0.01 to it (0.29/0.01 is 28.999999999999996 in float64), and an
// integer past 2^53 is judged as the float64 it rounds to. The facade
// judges multipleOf itself, on the literals (big.Rat): 0.29 is 29 times
// 0.01, 0.295 is not, 18446744073709551615 is a multiple of 5.
//
// It can do so wherever the divisor applies to an instance location that
// the schema alone names: through properties, additionalProperties (with
// no patternProperties beside it), items, prefixItems and allOf, from the
// root. Those divisors are taken out of the schema jsonschema-go compiles
// and checked by the facade on the bytes of the instance (multiples.check).
// A divisor under anyOf, oneOf, not, if/then/else, contains,
// patternProperties, $defs and the like decides which branch holds, and
// the verdict of the branch depends on jsonschema-go's; it stays in the
// schema, and a number on which float64 and the literals would disagree
// against such a divisor is refused as one the facade cannot check
// exactly (errInexact), as near.go does for the bounds: every number at or
// below the location of the deciding keyword, or, for a divisor under
// $defs, every number of the instance. Every divisor stays and is guarded
// so when the schema refers to a part of itself other than $defs or
// definitions ($ref "#/properties/x"): a divisor taken out would be
// missing where that part is referred to.

// multiples is the facade's multipleOf check of a schema.
type multiples struct {
	root *mulNode
	// guard are the divisors left in the schema where no location can be
	// told ($defs, which a $ref may use anywhere): every number of an
	// instance is held against them.
	guard []*divisor
	// stripped: divisors were taken out of the schema. unjudged: a
	// multipleOf is neither taken out nor guarded (not a positive number
	// read exactly), so jsonschema-go alone judges it.
	stripped, unjudged bool
}

// divisor is a multipleOf of a schema: its exact value and its literal,
// for refusals to quote.
type divisor struct {
	r   *bigpkg.Rat
	lit string
}

// mulNode is what applies at one instance location: the divisors taken
// out, those left in the schema below it (guard: every number at or below
// the location is held against them), and the nodes of the locations
// below. A nil node checks nothing.
type mulNode struct {
	of     []*divisor
	guard  []*divisor
	all    []*mulNode          // allOf branches: each at this location
	props  map[string]*mulNode // every listed property, nil for a plain one
	addl   *mulNode            // the members not in props
	prefix []*mulNode
	items  *mulNode // the elements past prefix
}

// compileMultiples returns schema without the divisors the facade checks
// itself, and the check (orNil: nil when it checks nothing); schema as it
// is and nil when it has no multipleOf.
func compileMultiples(schema []byte) ([]byte, *multiples) {
	if !bytes.Contains(bytes.ToLower(schema), []byte("multipleof")) && bytes.IndexByte(schema, '\\') < 0 {
		return schema, nil // the common case, without a decoding
	}
	d := json.NewDecoder(bytes.NewReader(schema))
	d.UseNumber()
	var doc any
	if d.Decode(&doc) != nil {
		return schema, nil // it does not compile either
	}
	m := &multiples{}
	m.root = m.walk(doc, !refersInside(doc), &m.guard)
	if m.root == nil && m.guard == nil {
		if m.unjudged {
			return schema, &multiples{unjudged: true}
		}
		return schema, nil
	}
	if !m.stripped {
		return schema, m
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(doc) != nil {
		return schema, nil
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), m
}

// refersInside reports whether a $ref or $dynamicRef anywhere in v points
// at anything but $defs or definitions.
func refersInside(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if s, ok := x.(string); ok && (strings.EqualFold(k, "$ref") || strings.EqualFold(k, "$dynamicRef")) &&
				!strings.HasPrefix(s, "#/$defs/") && !strings.HasPrefix(s, "#/definitions/") {
				return true
			}
			if refersInside(x) {
				return true
			}
		}
	case []any:
		for _, x := range t {
			if refersInside(x) {
				return true
			}
		}
	}
	return false
}

// divisorOf is the divisor of a multipleOf value, or nil when it is not a
// positive number read exactly (the schema is then left to jsonschema-go,
// which may not compile it).
func divisorOf(v any) *divisor {
	n, ok := v.(json.Number)
	if !ok {
		return nil
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || !(f > 0) {
		return nil
	}
	r, ok := exactLiteral(string(n), f)
	if !ok || r.Sign() <= 0 {
		return nil
	}
	return &divisor{r, string(n)}
}

// walk builds the node of schema v. At a location the schema names
// (strip), divisors are taken out of v; below a keyword that decides
// (anyOf...), they stay and are added to the guard of that location; in
// a part with no location, to guard.
func (m *multiples) walk(v any, strip bool, guard *[]*divisor) *mulNode {
	s, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	n := &mulNode{}
	local := guard
	if strip {
		local = &n.guard
	}
	checks := false
	patterns := false
	for k := range s {
		patterns = patterns || strings.EqualFold(k, "patternProperties")
	}
	// jsonschema-go reads a schema with encoding/json, which matches
	// keywords without case ("MultipleOf", "ANYOF"): so does the walk. Of
	// two keywords that differ only in case, jsonschema-go keeps one and
	// the walk both, which can only make the facade stricter.
	for k, x := range s {
		switch strings.ToLower(k) {
		case "multipleof":
			r := divisorOf(x)
			switch {
			case r == nil:
				m.unjudged = true
			case strip:
				n.of = append(n.of, r)
				delete(s, k)
				m.stripped, checks = true, true
			default:
				*guard = append(*guard, r)
			}
		case "properties":
			props, _ := x.(map[string]any)
			n.props = make(map[string]*mulNode, len(props))
			for name, p := range props {
				c := m.walk(p, strip, guard)
				n.props[name] = c
				checks = checks || c != nil
			}
		case "additionalproperties":
			if c := m.walk(x, strip && !patterns, local); c != nil {
				n.addl, checks = c, true
			}
		case "items":
			if _, list := x.([]any); list {
				m.walkAll(x, local) // the tuple form of older drafts
				continue
			}
			if c := m.walk(x, strip, guard); c != nil {
				n.items, checks = c, true
			}
		case "prefixitems":
			list, _ := x.([]any)
			for _, p := range list {
				c := m.walk(p, strip, guard)
				n.prefix = append(n.prefix, c)
				checks = checks || c != nil
			}
		case "allof":
			list, _ := x.([]any)
			for _, p := range list {
				if c := m.walk(p, strip, guard); c != nil {
					n.all, checks = append(n.all, c), true
				}
			}
		case "$defs", "definitions":
			m.walkAll(x, &m.guard)
		case "anyof", "oneof", "not", "if", "then", "else", "contains", "propertynames", "unevaluatedproperties",
			"unevaluateditems", "additionalitems", "patternproperties", "dependentschemas", "dependencies", "contentschema":
			m.walkAll(x, local)
		}
	}
	if len(n.guard) > 0 {
		checks = true
	}
	if !checks {
		return nil
	}
	if n.props == nil && n.addl != nil {
		n.props = map[string]*mulNode{}
	}
	return n
}

// walkAll adds every divisor of the schemas in x (a schema, a list or a
// map of them) to guard.
func (m *multiples) walkAll(x any, guard *[]*divisor) {
	switch t := x.(type) {
	case []any:
		for _, s := range t {
			m.walk(s, false, guard)
		}
	case map[string]any:
		// A schema, or a map of names to schemas ($defs): it is walked
		// as both, which can only add divisors to the guard.
		m.walk(t, false, guard)
		for _, s := range t {
			m.walk(s, false, guard)
		}
	}
}

// errNotMultiple is the verdict on a number that is not a multiple of a
// divisor.
var errNotMultiple = errors.New("not a multiple")

// check judges the instance raw (valid JSON, numbers read before by
// decodeExact): the divisors taken out at their locations, and the guards
// on the numbers below theirs. An error wraps errInexact or
// errNotMultiple; what names the value in it ("argument",
// "structuredContent member").
func (m *multiples) check(raw []byte, what string) error {
	if len(m.guard) > 0 {
		if err := guarded(raw, "", what, m.guard); err != nil {
			return err
		}
	}
	return m.root.check(raw, "", what)
}

// guarded refuses a number in v on which float64 and the literals
// disagree against a divisor left in the schema: jsonschema-go would
// judge it otherwise than it is written.
func guarded(v []byte, where, what string, guard []*divisor) error {
	var err error
	switch {
	case len(v) == 0:
	case v[0] == '{':
		_ = jsonscan.MembersBytes(v, func(k, mv []byte) bool {
			err = guarded(mv, where+"."+string(k), what, guard)
			return err == nil
		})
	case v[0] == '[':
		i := 0
		_ = jsonscan.Elements(v, func(e []byte) bool {
			err = guarded(e, where+"["+strconv.Itoa(i)+"]", what, guard)
			i++
			return err == nil
		})
	case v[0] == '-' || v[0] >= '0' && v[0] <= '9':
		s := string(v)
		inst, _, nerr := exactNumber(s)
		if nerr != nil {
			return nil // refused by the decoding
		}
		for _, d := range guard {
			exact, ok := isMultiple(s, d.r)
			if !ok || exact != floatMultiple(inst, d.r) {
				return fmt.Errorf("%w: %s %s is %s, which the facade's validator would not divide by multipleOf %s as written (it divides in float64)",
					errInexact, what, placeOf(where), shortNumber(s), shortNumber(d.lit))
			}
		}
	}
	return err
}

// floatMultiple is jsonschema-go's verdict: the instance as it sees it
// (exactNumber's reading), divided by the divisor read as float64.
func floatMultiple(inst any, d *bigpkg.Rat) bool {
	var nf float64
	switch v := inst.(type) {
	case int64:
		nf, _ = new(bigpkg.Rat).SetInt64(v).Float64()
	case uint64:
		nf, _ = new(bigpkg.Rat).SetUint64(v).Float64()
	case float64:
		nf = v
	}
	df, _ := d.Float64()
	_, frac := math.Modf(nf / df)
	return frac == 0
}

// isMultiple reports whether the number literal s is an integer multiple
// of d, read exactly; false for ok when s is not read exactly.
func isMultiple(s string, d *bigpkg.Rat) (multiple, ok bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return false, false
	}
	r, ok := exactLiteral(s, f)
	if !ok {
		return false, false
	}
	return r.Quo(r, d).IsInt(), true
}

// check judges v at the location of n.
func (n *mulNode) check(v []byte, where, what string) error {
	if n == nil || len(v) == 0 {
		return nil
	}
	if len(n.guard) > 0 {
		if err := guarded(v, where, what, n.guard); err != nil {
			return err
		}
	}
	for _, a := range n.all {
		if err := a.check(v, where, what); err != nil {
			return err
		}
	}
	var err error
	switch {
	case v[0] == '{' && n.props != nil:
		_ = jsonscan.MembersBytes(v, func(k, mv []byte) bool {
			c, listed := n.props[string(k)]
			if !listed {
				c = n.addl
			}
			err = c.check(mv, where+"."+string(k), what)
			return err == nil
		})
	case v[0] == '[' && (n.prefix != nil || n.items != nil):
		i := 0
		_ = jsonscan.Elements(v, func(e []byte) bool {
			c := n.items
			if i < len(n.prefix) {
				c = n.prefix[i]
			}
			err = c.check(e, where+"["+strconv.Itoa(i)+"]", what)
			i++
			return err == nil
		})
	case len(n.of) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9'):
		s := string(v)
		for _, d := range n.of {
			multiple, ok := isMultiple(s, d.r)
			switch {
			case !ok:
				return fmt.Errorf("%w: %s %s is %s, which the facade cannot divide exactly by multipleOf %s", errInexact, what, placeOf(where), shortNumber(s), shortNumber(d.lit))
			case !multiple:
				return fmt.Errorf("%w: multipleOf: %s %s is %s, not a multiple of %s", errNotMultiple, what, placeOf(where), shortNumber(s), shortNumber(d.lit))
			}
		}
	}
	return err
}

// orNil is m, or nil when it checks nothing (a schema whose multipleOf
// the facade leaves to jsonschema-go alone).
func (m *multiples) orNil() *multiples {
	if m == nil || (m.root == nil && m.guard == nil) {
		return nil
	}
	return m
}
