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

	"github.com/google/jsonschema-go/jsonschema"

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
// the verdict of the branch is jsonschema-go's; it stays in the schema
// and is guarded: each number at or below the location of the deciding
// keyword (for a divisor under $defs, every number of the instance) is
// divided exactly and in float64. Where the two agree, jsonschema-go's
// answer is the exact one. Where they disagree (0.3 against 0.1), the
// instance is validated against a copy of the schema in which that
// divisor also answers exactly for the numbers of this instance
// (exactSchema): the exact answer decides under anyOf as at the top. Only
// when two numbers of the instance read as the same float64 and get
// different exact answers (0.3 and 0.30000000000000000001 against 0.1)
// can jsonschema-go not tell them apart, and the arguments are refused as
// ones the facade cannot check exactly (errInexact). Every divisor stays
// and is guarded so when the schema refers to a part of itself other than
// $defs or definitions ($ref "#/properties/x"): a divisor taken out would
// be missing where that part is referred to.

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
	// schema is the schema jsonschema-go compiles (the divisors taken
	// out), which exactSchema rewrites for an instance.
	schema []byte
	// left are the divisors left in the schema and guarded, with where
	// they are in the decoded schema the walk saw.
	left []*divisor
}

// divisor is a multipleOf of a schema: its exact value and its literal,
// for refusals to quote.
type divisor struct {
	r   *bigpkg.Rat
	lit string
	// node and key: the schema object the divisor is a member of, and the
	// member's name, for a divisor left in the schema.
	node map[string]any
	key  string
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
		m.schema = schema
		return schema, m
	}
	b, err := encodeSchema(doc)
	if err != nil {
		return schema, nil
	}
	m.schema = b
	return b, m
}

// encodeSchema encodes a schema decoded with UseNumber, numbers as
// written.
func encodeSchema(doc any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
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
	return &divisor{r: r, lit: string(n)}
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
				r.node, r.key = s, k
				*guard = append(*guard, r)
				m.left = append(m.left, r)
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
// "structuredContent member"). When jsonschema-go would divide a number
// otherwise than it is written by a divisor left in the schema, it
// returns those answers (fix, not nil): the instance is to be validated
// against m.exactSchema(fix).
func (m *multiples) check(raw []byte, what string) (fix *answers, err error) {
	a := &answers{}
	if len(m.guard) > 0 {
		if err := a.guarded(raw, "", what, m.guard); err != nil {
			return nil, err
		}
	}
	if err := m.root.check(raw, "", what, a); err != nil {
		return nil, err
	}
	return a.fix(what)
}

// answers are the exact answers of the numbers of an instance against
// the divisors left in a schema, by divisor value.
type answers struct {
	by map[string]*divAnswers // by divisor, exactly (big.Rat.RatString)
}

// divAnswers are the answers against one divisor value, by the float64
// each number reads as: jsonschema-go, which judges the float64, can
// only be told the exact answer of a float64.
type divAnswers struct {
	d        *divisor
	multiple map[float64]bool
	differ   bool   // float64 division disagrees with the literals somewhere
	clash    string // a number whose float64 another number with another answer shares
}

// note records the exact answer of the number s (read as inst) against d.
func (a *answers) note(d *divisor, inst any, s, where, what string, exact, differ bool) {
	if a.by == nil {
		a.by = map[string]*divAnswers{}
	}
	key := d.r.RatString()
	da := a.by[key]
	if da == nil {
		da = &divAnswers{d: d, multiple: map[float64]bool{}}
		a.by[key] = da
	}
	f := floatOf(inst)
	if prev, seen := da.multiple[f]; seen && prev != exact && da.clash == "" {
		da.clash = fmt.Sprintf("%s %s is %s", what, placeOf(where), shortNumber(s))
	}
	da.multiple[f] = exact
	da.differ = da.differ || differ
}

// fix returns a, or nil when jsonschema-go answers as the literals do.
func (a *answers) fix(what string) (*answers, error) {
	var out *answers
	for _, da := range a.by {
		if !da.differ {
			continue
		}
		if da.clash != "" {
			return nil, fmt.Errorf("%w: %s, and another %s reads as the same float64 but is not as divisible by multipleOf %s: the facade's validator cannot tell them apart",
				errInexact, da.clash, what, shortNumber(da.d.lit))
		}
		out = a
	}
	return out, nil
}

// floatOf is the float64 jsonschema-go divides for inst.
func floatOf(inst any) float64 {
	switch v := inst.(type) {
	case int64:
		return float64(v)
	case uint64:
		return float64(v)
	case float64:
		return v
	}
	return 0
}

// guarded divides each number in v exactly and in float64 by the divisors
// left in the schema, and notes the answers. A number it cannot divide
// exactly, and an integer of magnitude 2^53 or more that float64 divides
// otherwise (jsonschema-go is told a float64's answer, and such an
// integer does not read as its own float64), are refused.
func (a *answers) guarded(v []byte, where, what string, guard []*divisor) error {
	var err error
	switch {
	case len(v) == 0:
	case v[0] == '{':
		_ = jsonscan.MembersBytes(v, func(k, mv []byte) bool {
			err = a.guarded(mv, where+"."+string(k), what, guard)
			return err == nil
		})
	case v[0] == '[':
		i := 0
		_ = jsonscan.Elements(v, func(e []byte) bool {
			err = a.guarded(e, where+"["+strconv.Itoa(i)+"]", what, guard)
			i++
			return err == nil
		})
	case v[0] == '-' || v[0] >= '0' && v[0] <= '9':
		s := string(v)
		inst, big, nerr := exactNumber(s)
		if nerr != nil {
			return nil // refused by the decoding
		}
		for _, d := range guard {
			exact, ok := isMultiple(s, d.r)
			differ := ok && exact != floatMultiple(inst, d.r)
			if !ok || differ && big {
				return fmt.Errorf("%w: %s %s is %s, which the facade's validator would not divide by multipleOf %s as written (it divides in float64)",
					errInexact, what, placeOf(where), shortNumber(s), shortNumber(d.lit))
			}
			a.note(d, inst, s, where, what, exact, differ)
		}
	}
	return err
}

// maxExactSchemaBytes bounds the schemas exactSchema compiles: it does so
// on a call, for a number the model chose, and an upstream's schema is
// bounded only by its message (the listed one, cleaned, may be far
// smaller). Past it, such a call is refused as inexact, as before.
const maxExactSchemaBytes = 1 << 20

// exactSchema returns the schema jsonschema-go compiles, m.schema, with
// each divisor left in it on which float64 and the literals disagree for
// this instance (fix) made to answer exactly: its multipleOf is replaced
// by an allOf member (appended, so that no reference into an allOf list
// moves) that holds "multipleOf" except for the numbers whose answer
// float64 gets wrong, which an enum names. input says whether it is an
// input schema (compileSchema). The cost model returned is that of the
// schema compiled: each of those enums holds a number for each number of
// the instance float64 misjudges, and every number under the divisor is
// compared with all of them (4000 prices against
// {"anyOf":[{"multipleOf":0.01},{"type":"string"}]}, pydantic's Decimal,
// took 2 s, 16000 of them 33 s), which the model of m.schema did not see.
func (m *multiples) exactSchema(fix *answers, input bool) (*jsonschema.Resolved, *costGraph, error) {
	if len(m.schema) > maxExactSchemaBytes {
		return nil, nil, fmt.Errorf("%w: the tool's schema is %d bytes, too large to compile again for the numbers of one call (at most %d)", errInexact, len(m.schema), maxExactSchemaBytes)
	}
	d := json.NewDecoder(bytes.NewReader(m.schema))
	d.UseNumber()
	var doc any
	if err := d.Decode(&doc); err != nil {
		return nil, nil, err
	}
	// The same walk over a fresh copy finds the same divisors left, and
	// where they are in it.
	w := &multiples{}
	w.walk(doc, !refersInside(doc), &w.guard)
	for _, dv := range w.left {
		da := fix.by[dv.r.RatString()]
		if da == nil || !da.differ {
			continue
		}
		if _, still := dv.node[dv.key]; !still {
			continue // walked twice (walkAll): done already
		}
		var yes, no []any // the numbers float64 gets wrong, by answer
		for f, multiple := range da.multiple {
			if multiple != floatMultiple(f, dv.r) {
				n := json.Number(strconv.FormatFloat(f, 'g', -1, 64))
				if multiple {
					yes = append(yes, n)
				} else {
					no = append(no, n)
				}
			}
		}
		div := map[string]any{"multipleOf": dv.node[dv.key]}
		if no != nil {
			div["not"] = map[string]any{"enum": no}
		}
		exact := map[string]any{"anyOf": []any{div}}
		if yes != nil {
			exact["anyOf"] = []any{div, map[string]any{"enum": yes}}
		}
		delete(dv.node, dv.key)
		var allOf string
		for k := range dv.node {
			if strings.EqualFold(k, "allOf") {
				if allOf != "" {
					return nil, nil, fmt.Errorf("%w: the schema has allOf twice", errInexact)
				}
				allOf = k
			}
		}
		if allOf == "" {
			dv.node["allOf"] = []any{exact}
			continue
		}
		list, ok := dv.node[allOf].([]any)
		if !ok {
			return nil, nil, fmt.Errorf("%w: the schema's allOf is not a list", errInexact)
		}
		dv.node[allOf] = append(list, exact)
	}
	b, err := encodeSchema(doc)
	if err != nil {
		return nil, nil, err
	}
	r, err := compileSchema(b, input)
	if err != nil {
		return nil, nil, err
	}
	return r, newCostGraph(b), nil
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

// check judges v at the location of n, noting the answers of the
// guarded divisors in ans.
func (n *mulNode) check(v []byte, where, what string, ans *answers) error {
	if n == nil || len(v) == 0 {
		return nil
	}
	if len(n.guard) > 0 {
		if err := ans.guarded(v, where, what, n.guard); err != nil {
			return err
		}
	}
	for _, a := range n.all {
		if err := a.check(v, where, what, ans); err != nil {
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
			err = c.check(mv, where+"."+string(k), what, ans)
			return err == nil
		})
	case v[0] == '[' && (n.prefix != nil || n.items != nil):
		i := 0
		_ = jsonscan.Elements(v, func(e []byte) bool {
			c := n.items
			if i < len(n.prefix) {
				c = n.prefix[i]
			}
			err = c.check(e, where+"["+strconv.Itoa(i)+"]", what, ans)
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
