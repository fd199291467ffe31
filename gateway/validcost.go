package gateway

import (
	"reflect"
	"regexp"
	"unsafe"
)

// jsonschema-go applies every schema that reaches a place in the value,
// with no memory of having applied it there before, and visits every
// branch of an anyOf (for its annotations). A schema that references
// itself from two places at one level, as a recursive union does
// ({"anyOf":[{"properties":{"c":{"$ref":"#"}}},{"properties":{"c":{"$ref":"#"}}}]}),
// applies itself 2^d times at depth d of the value: 86 bytes of
// arguments nested 14 deep took 45 s of CPU, and a failing call builds an
// error that names every failed branch, in memory of the same order.
// Schemas like that are ordinary (expression trees, filters); arguments
// that deep are the model's choice. So before jsonschema-go validates a
// value against a schema with references, the facade counts what it would
// visit, on a model of the schema (costGraph) that applies at least what
// jsonschema-go applies, and refuses a value that costs more than
// maxValidationCost. A schema without references is a tree: each of its
// schemas applies once at each place, and the cost is bounded by the
// value's size.

// maxValidationCost bounds the schemas applied to validate one value,
// each counted once per level of the value it is under (an error names
// the path to each failure, so a deep failure costs as much as its
// depth). Arguments of an array of 20000 objects, each checked through a
// $ref against five properties, cost about 600000; counting to the bound
// takes a few milliseconds.
const maxValidationCost = 1 << 21

// costGraph is a schema with references, as the schemas each of its
// schemas applies, by where: node 0 is the root.
type costGraph struct {
	nodes []costNode
}

// costNode is one schema: what it applies to its own value, to the
// members of an object, and to the elements of an array. Where
// jsonschema-go decides by what else matched (additionalProperties,
// unevaluated*), the model applies it anyway.
type costNode struct {
	same     []int32            // $ref, allOf, anyOf, not, if, then, dependentSchemas, ...
	props    map[string][]int32 // properties, by member name
	patterns []costPattern      // patternProperties
	members  []int32            // additionalProperties, unevaluatedProperties
	names    []int32            // propertyNames, to each member name
	prefix   []int32            // prefixItems (or an items list), by index
	elems    []int32            // items, additionalItems, contains, unevaluatedItems
}

type costPattern struct {
	re   *regexp.Regexp // nil: a pattern jsonschema-go would not compile; applied to all
	node int32
}

// newCostGraph returns the cost model of schema, or nil when it has no
// references (or does not decode: it did not compile then). schema has
// passed checkRefs: its references are JSON Pointers that resolve.
func newCostGraph(schema []byte) *costGraph {
	root := decodeSchemaObject(schema)
	if !hasRefs(root) {
		return nil
	}
	b := &costBuilder{root: root, index: map[unsafe.Pointer]int32{}}
	b.g.nodes = append(b.g.nodes, costNode{}) // the root, filled below
	b.index[reflect.ValueOf(root).UnsafePointer()] = 0
	b.fill(0, root)
	return &b.g
}

type costBuilder struct {
	g     costGraph
	root  map[string]any
	index map[unsafe.Pointer]int32
	leaf  int32 // a boolean schema's node, once made; 0 is none yet
}

// node returns the index of schema v (an object or a boolean).
func (b *costBuilder) node(v any) int32 {
	m, ok := v.(map[string]any)
	if !ok {
		if b.leaf == 0 {
			b.leaf = int32(len(b.g.nodes))
			b.g.nodes = append(b.g.nodes, costNode{})
		}
		return b.leaf
	}
	p := reflect.ValueOf(m).UnsafePointer()
	if i, ok := b.index[p]; ok {
		return i
	}
	i := int32(len(b.g.nodes))
	b.g.nodes = append(b.g.nodes, costNode{})
	b.index[p] = i
	b.fill(i, m)
	return i
}

// fill reads schema s into node i. Values that are not schemas where a
// schema belongs are left out: they did not compile.
func (b *costBuilder) fill(i int32, s map[string]any) {
	var n costNode
	schema := func(v any) (int32, bool) {
		switch v.(type) {
		case map[string]any, bool:
			return b.node(v), true
		}
		return 0, false
	}
	list := func(dst *[]int32, v any) {
		l, _ := v.([]any)
		for _, x := range l {
			if j, ok := schema(x); ok {
				*dst = append(*dst, j)
			}
		}
	}
	one := func(dst *[]int32, v any) {
		if j, ok := schema(v); ok {
			*dst = append(*dst, j)
		}
	}
	for k, v := range s {
		switch kw := keywordOf(k); kw {
		case "$ref", "$dynamicRef":
			if ref, _ := v.(string); ref != "" {
				if t, err := pointerTarget(b.root, ref); err == nil {
					one(&n.same, t)
				}
			}
		case "allOf", "anyOf", "oneOf":
			list(&n.same, v)
		case "not", "if", "then", "else":
			one(&n.same, v)
		case "dependentSchemas", "dependencies":
			deps, _ := v.(map[string]any)
			for _, x := range deps {
				if _, isList := x.([]any); !isList {
					one(&n.same, x)
				}
			}
		case "properties":
			props, _ := v.(map[string]any)
			for name, x := range props {
				if j, ok := schema(x); ok {
					if n.props == nil {
						n.props = map[string][]int32{}
					}
					n.props[name] = append(n.props[name], j)
				}
			}
		case "patternProperties":
			pats, _ := v.(map[string]any)
			for pat, x := range pats {
				if j, ok := schema(x); ok {
					re, _ := regexp.Compile(pat)
					n.patterns = append(n.patterns, costPattern{re: re, node: j})
				}
			}
		case "additionalProperties", "unevaluatedProperties":
			one(&n.members, v)
		case "propertyNames":
			one(&n.names, v)
		case "items":
			if _, isList := v.([]any); isList {
				list(&n.prefix, v)
			} else {
				one(&n.elems, v)
			}
		case "prefixItems":
			list(&n.prefix, v)
		case "additionalItems", "contains", "unevaluatedItems":
			one(&n.elems, v)
		}
	}
	b.g.nodes[i] = n
}

// tooCostly reports whether validating v against the schema of g visits
// more than maxValidationCost schemas, counted by depth. It stops
// counting there: the count costs at most that many steps.
func (g *costGraph) tooCostly(v any) bool {
	if g == nil {
		return false
	}
	budget := maxValidationCost
	g.count(0, v, 1, &budget)
	return budget < 0
}

// count takes from budget what applying node i to v, at depth, costs.
func (g *costGraph) count(i int32, v any, depth int, budget *int) {
	if *budget -= depth; *budget < 0 {
		return
	}
	n := &g.nodes[i]
	for _, j := range n.same {
		if g.count(j, v, depth, budget); *budget < 0 {
			return
		}
	}
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			for _, j := range n.names {
				if g.count(j, k, depth+1, budget); *budget < 0 {
					return
				}
			}
			for _, j := range n.props[k] {
				if g.count(j, x, depth+1, budget); *budget < 0 {
					return
				}
			}
			for _, p := range n.patterns {
				if p.re == nil || p.re.MatchString(k) {
					if g.count(p.node, x, depth+1, budget); *budget < 0 {
						return
					}
				}
			}
			for _, j := range n.members {
				if g.count(j, x, depth+1, budget); *budget < 0 {
					return
				}
			}
		}
	case []any:
		for idx, x := range t {
			if idx < len(n.prefix) {
				if g.count(n.prefix[idx], x, depth+1, budget); *budget < 0 {
					return
				}
			}
			for _, j := range n.elems {
				if g.count(j, x, depth+1, budget); *budget < 0 {
					return
				}
			}
		}
	}
}
