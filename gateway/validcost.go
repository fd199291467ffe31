package gateway

import (
	"encoding/json"
	"reflect"
	"strconv"
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
// value, the facade counts what it would visit, on a model of the schema (costGraph) that applies at least what
// jsonschema-go applies, and refuses a value that costs more than
// maxValidationCost.
//
// An application does not cost one either, and a schema without
// references is no cheaper for being a tree (an earlier release counted
// only schemas with references). What one costs grows with the schema
// there and with the value there:
//   - enum compares the value with every entry (two big.Rat allocations
//     each), required and dependentRequired look up every name, and
//     patternProperties tries every pattern on every member: an array of
//     80000 empty objects against items {anyOf:[{required:[5000
//     names]},{}]} took 101 s and 37 GB, valid;
//   - a failure prints the value there with %v and the keyword's own
//     values (the enum, the missing names), and every frame above it
//     wraps the whole text again, as do anyOf's joins (all its branches
//     are visited): a recursive union (anyOf of a string and an array of
//     itself) against 2 KB of arrays 1000 deep took 2.7 s and 3.9 GB,
//     and against 50 KB 400 deep 11 s and 30 GB.
// So each application is charged, besides its depth, what its schema
// holds (costNode.own), what it does with the value whatever the outcome
// (uniqueItems, patterns, the evaluated members each frame merges), the
// names the frames above would wrap a failure here in (costNode.path),
// and, where a failure does not end validation (under anyOf, oneOf, not,
// if, contains, which drop it and go on), the bytes a failure there
// prints (the value's size and costNode.text) and those bytes again for
// each frame that wraps them. Elsewhere the first failure ends
// validation: the costliest such is counted once.

// maxValidationCost bounds the cost of validating one value: each
// application counted once per level of the value it is under (an error
// names the path to each failure, so a deep failure costs as much as its
// depth), plus what costCounter.count charges for the schema and the
// value there; a unit is 50 to 300 ns of jsonschema-go's (measured on the
// cases above). Arguments of an array of 20000 objects, each checked
// through a $ref against five properties, cost about 990000 (800 KB; the
// default cap on arguments is 256 KB); counting to the bound takes a few
// milliseconds. A recursive pydantic tree with an Optional at every level
// costs about 0.36 of it at 72 KB: 2^21 refused such trees past about 100
// KB, which jsonschema-go validates in 50 to 160 ms; at 2^22 the worst a
// value can cost is about 1 to 2 s of CPU on this project's 2-core
// machine.
const maxValidationCost = 1 << 22

// costGraph is a schema, as the schemas each of its schemas applies, by
// where: node 0 is the root.
type costGraph struct {
	nodes []costNode
}

// costNode is one schema: what it applies to its own value, to the
// members of an object, and to the elements of an array. Where
// jsonschema-go decides by what else matched (additionalProperties,
// unevaluated*), the model applies it anyway.
type costNode struct {
	same     []int32            // $ref, allOf, then, else, dependentSchemas, ...
	tried    []int32            // anyOf, oneOf, not, if: a failure there is built and dropped
	props    map[string][]int32 // properties, by member name
	patterns []int32            // patternProperties, each to every member
	members  []int32            // additionalProperties, unevaluatedProperties
	names    []int32            // propertyNames, to each member name
	prefix   []int32            // prefixItems (or an items list), by index
	elems    []int32            // items, additionalItems, unevaluatedItems
	contains []int32            // contains, to each element: tried, as above
	// own is the entries an application looks through (enum, required,
	// dependentRequired); text the bytes of its keywords' values a failure
	// may print; path the length of the name jsonschema-go gives the
	// schema in errors (its JSON Pointer, or its $id).
	own, text, path int
	// unique: uniqueItems, which hashes every element whole; scans:
	// pattern, minLength or maxLength, which read a string whole.
	unique, scans bool
}

// newCostGraph returns the cost model of schema, or nil when it does not
// decode as an object (it did not compile then, or is a boolean). schema
// has passed checkRefs: its references are JSON Pointers that resolve.
func newCostGraph(schema []byte) *costGraph {
	root := decodeSchemaObject(schema)
	if root == nil {
		return nil
	}
	b := &costBuilder{root: root, index: map[unsafe.Pointer]int32{}, paths: map[unsafe.Pointer]int{}}
	b.pathLens(root, len("root"))
	b.g.nodes = append(b.g.nodes, costNode{}) // the root, filled below
	b.index[reflect.ValueOf(root).UnsafePointer()] = 0
	b.fill(0, root)
	return &b.g
}

// pathLens records the length of the JSON Pointer jsonschema-go names s
// and the schemas in it by (n for s).
func (b *costBuilder) pathLens(s map[string]any, n int) {
	b.paths[reflect.ValueOf(s).UnsafePointer()] = n
	if n == len("root") {
		n = 0
	}
	for k, v := range s {
		kw := keywordOf(k)
		if m, ok := v.(map[string]any); ok {
			if subschemaOne[kw] {
				b.pathLens(m, n+1+len(kw))
			}
			if subschemaMap[kw] {
				for name, x := range m {
					if xm, ok := x.(map[string]any); ok {
						b.pathLens(xm, n+2+len(kw)+len(name))
					}
				}
			}
		}
		if list, ok := v.([]any); ok && subschemaList[kw] {
			for i, x := range list {
				if xm, ok := x.(map[string]any); ok {
					b.pathLens(xm, n+2+len(kw)+len(strconv.Itoa(i)))
				}
			}
		}
	}
}

type costBuilder struct {
	g     costGraph
	root  map[string]any
	index map[unsafe.Pointer]int32
	paths map[unsafe.Pointer]int // pathLens
	leaf  int32                  // a boolean schema's node, once made; 0 is none yet
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
	n.path = b.paths[reflect.ValueOf(s).UnsafePointer()]
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
		case "$id":
			if id, _ := v.(string); id != "" {
				n.path = len(id) // jsonschema-go names the schema by it
			}
		case "enum", "required":
			l, _ := v.([]any)
			n.own += len(l)
			n.text += textLen(v)
		case "dependentRequired":
			deps, _ := v.(map[string]any)
			for _, x := range deps {
				l, _ := x.([]any)
				n.own += len(l)
			}
			n.text += textLen(v)
		case "const", "pattern", "type":
			n.text += textLen(v)
			n.scans = n.scans || kw == "pattern"
		case "minLength", "maxLength":
			n.scans = true
		case "uniqueItems":
			n.unique = v == true
		case "allOf":
			list(&n.same, v)
		case "anyOf", "oneOf":
			list(&n.tried, v)
		case "not", "if":
			one(&n.tried, v)
		case "then", "else":
			one(&n.same, v)
		case "dependentSchemas", "dependencies":
			deps, _ := v.(map[string]any)
			for _, x := range deps {
				if l, isList := x.([]any); !isList {
					one(&n.same, x)
				} else {
					n.own += len(l)
					n.text += textLen(x)
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
			for _, x := range pats {
				if j, ok := schema(x); ok {
					n.patterns = append(n.patterns, j)
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
		case "additionalItems", "unevaluatedItems":
			one(&n.elems, v)
		case "contains":
			one(&n.contains, v)
		}
	}
	b.g.nodes[i] = n
}

// textLen is the length of v encoded, about what %v prints of it.
func textLen(v any) int {
	b, _ := json.Marshal(v)
	return len(b)
}

// tooCostly reports whether validating v against the schema of g costs
// more than maxValidationCost. It stops counting there: the count costs
// at most that many steps.
func (g *costGraph) tooCostly(v any) bool {
	if g == nil {
		return false
	}
	c := costCounter{g: g, budget: maxValidationCost}
	c.count(0, v, 1, 1, false)
	return c.budget-c.final < 0
}

// costCounter is one count of tooCostly.
type costCounter struct {
	g      *costGraph
	budget int
	final  int                    // the costliest failure that ends validation
	sizes  map[unsafe.Pointer]int // of the objects and arrays of the value
}

// count takes from the budget what applying node i to v costs, at depth
// (the value's levels) and frames (the applications that wrap it, each
// of which copies the error text made under it). tried: it is under a
// keyword that drops failures (anyOf, oneOf, not, if, contains), so a
// failure here is built and validation goes on; elsewhere the first
// failure ends it, and its text is built once.
func (c *costCounter) count(i int32, v any, depth, frames int, tried bool) {
	n := &c.g.nodes[i]
	cost := depth + n.own
	// What an application does with the value there whatever the
	// outcome: annotations name an object's evaluated members, and each
	// frame that merges them copies the set (1000 allOf frames around an
	// object of 20000 members took 1.3 s); uniqueItems hashes the array
	// whole, sorting each object's names, a big.Rat for each number (77
	// ns a byte: 200 arrays each holding the next and an object of 20000
	// members took 4 s); a pattern runs over the string.
	switch t := v.(type) {
	case map[string]any:
		cost += len(t) / 4
	case []any:
		if n.unique && len(t) > 1 {
			cost += c.size(v) / 2
		}
	case string:
		if n.scans {
			cost += len(t) / 16
		}
	}
	// A failure here prints the value and the keyword's values, and each
	// frame above wraps the text, adding its own name: under anyOf and
	// the like any number of failures are built; elsewhere the first
	// ends validation, so its printing is counted once, for the costliest
	// (final), but the names still add up along a chain of frames (a
	// failure at the end of 8000 $refs in a row built 1.5 GB of text).
	printed := c.size(v) + n.text
	cost += frames * (n.path + 64) / 128
	if tried {
		cost += printed/32 + frames*printed/128
	} else {
		c.final = max(c.final, printed/32+frames*printed/128)
	}
	if c.budget -= cost; c.budget < 0 {
		return
	}
	if !c.each(n.same, v, depth, frames+1, tried) || !c.each(n.tried, v, depth, frames+1, true) {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		if len(n.names)+len(n.patterns)+len(n.members) == 0 {
			// Only properties: look them up, as jsonschema-go does.
			// Going through the members instead cost the count the
			// members times the applications, uncharged (an anyOf of
			// 1000 branches of properties against 20000 members).
			for name, js := range n.props {
				if x, ok := t[name]; ok && !c.each(js, x, depth+1, frames+1, tried) {
					return
				}
			}
			return
		}
		for k, x := range t {
			if !c.each(n.names, k, depth+1, frames+1, tried) || !c.each(n.props[k], x, depth+1, frames+1, tried) {
				return
			}
			// jsonschema-go tries every pattern on every member. The
			// model applies every pattern's schema too: matching them
			// here cost as much as validating (2.6 s for 3000 patterns
			// and 20000 members).
			if c.budget -= (len(n.patterns) + 3) / 4; c.budget < 0 {
				return
			}
			if !c.each(n.patterns, x, depth+1, frames+1, tried) || !c.each(n.members, x, depth+1, frames+1, tried) {
				return
			}
		}
	case []any:
		if len(n.elems)+len(n.contains) == 0 {
			t = t[:min(len(t), len(n.prefix))] // as above
		}
		for idx, x := range t {
			if idx < len(n.prefix) && !c.each(n.prefix[idx:idx+1], x, depth+1, frames+1, tried) {
				return
			}
			if !c.each(n.elems, x, depth+1, frames+1, tried) || !c.each(n.contains, x, depth+1, frames+1, true) {
				return
			}
		}
	}
}

// each counts every node of nodes applied to v, and reports whether
// budget is left.
func (c *costCounter) each(nodes []int32, v any, depth, frames int, tried bool) bool {
	for _, j := range nodes {
		if c.count(j, v, depth, frames, tried); c.budget < 0 {
			return false
		}
	}
	return true
}

// size is about the length of v printed (with %v or %q), remembered for
// objects and arrays: each is sized once however often it is reached.
func (c *costCounter) size(v any) int {
	var p unsafe.Pointer
	switch t := v.(type) {
	case string:
		return len(t) + 2
	case map[string]any:
		if len(t) == 0 {
			return 2
		}
		p = reflect.ValueOf(t).UnsafePointer()
	case []any:
		if len(t) == 0 {
			return 2
		}
		p = unsafe.Pointer(unsafe.SliceData(t))
	default:
		return 8 // a number, true, false, null
	}
	if n, ok := c.sizes[p]; ok {
		return n
	}
	n := 2
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			n += len(k) + 2 + c.size(x)
		}
	case []any:
		for _, x := range t {
			n += 1 + c.size(x)
		}
	}
	if c.sizes == nil {
		c.sizes = map[unsafe.Pointer]int{}
	}
	c.sizes[p] = n
	return n
}
