package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/google/jsonschema-go/jsonschema"
)

// jsonschema-go follows a $ref each time it meets it, with no memory of
// where it has been. A schema whose references lead back to itself at
// the same place in the value ({"$ref":"#"}, two $defs that refer to each
// other, an allOf that refers to its parent) recurses until the
// goroutine's stack overflows, and a stack overflow ends the process:
// one upstream's tool, called once, would take down every session of the
// facade. (Recursion through properties or items is bounded by the
// value's depth, and is fine.) Such a schema can validate nothing, and
// the specification calls it an error: the facade does not compile it.
//
// The check must see the references as jsonschema-go resolves them, or a
// loop it cannot see passes: a $ref to an $anchor, to the root's absolute
// $id, or under a nested $id (which changes what "#" means), or a
// keyword written twice (encoding/json merges "$defs" and "$DEFS" into
// one field, where a map keeps them apart). Rather than copy the
// library's whole URI resolution, checkRefs follows what it can prove
// (a local JSON Pointer, walked over the schema as written) and, in a
// schema that has references at all, refuses what it cannot.

// checkRefs returns why the facade does not compile schema, or nil.
// Invalid JSON is nil: the compiler says what is wrong with it.
func checkRefs(schema []byte) error {
	root := decodeSchemaObject(schema)
	if root == nil {
		return nil
	}
	// A keyword whose value holds schemas, given twice in one object
	// (exactly, or in another case: "not" and "not", "$defs" and "$DEFS"),
	// is one key of the map above (the last copy, or two keys) and one
	// field to encoding/json, which decodes each copy into it and merges
	// them: a pointer field or a slice element keeps what an earlier copy
	// set and the later one did not, a map field the earlier copy's
	// keys. The checks here and the cost model (validcost.go) read the
	// map: {"not":{"$ref":"#"},"not":{}} has no reference to them, and
	// overflowed the stack on the first call; a hidden copy's anyOf or
	// enum went uncounted. Such a schema is not compiled, references or
	// not.
	if d := dupWhere(schema, mergingKeyword); d != "" {
		return fmt.Errorf("member %s is given twice (as written or in another case), which parsers read differently; the facade does not follow them", placeOf(d))
	}
	if !hasRefs(root) {
		return nil // without references, the schemas form a tree
	}
	nestedID := false
	eachSchema(root, func(s map[string]any) bool {
		for k, v := range s {
			if keywordOf(k) == "$id" {
				if id, _ := v.(string); id != "" && !sameMap(s, root) {
					nestedID = true
				}
			}
		}
		return !nestedID
	})
	if nestedID {
		return errors.New("it has references and a $id below its root, which changes what they refer to; the facade does not follow them")
	}
	// The other keywords given twice ("$ref" and "$REF": the last in the
	// text counts; the walk above follows both) are refused too, as
	// before; names that are no keyword ("id" and "ID" in properties,
	// which stay two) are not.
	if d := dupWhere(schema, func(k []byte) bool { return keywordOf(string(k)) != "" }); d != "" {
		return fmt.Errorf("it has references and member %s given twice (as written or in another case), which parsers read differently; the facade does not follow them", placeOf(d))
	}
	l := &loopFinder{root: root, color: map[unsafe.Pointer]int8{}}
	var err error
	eachSchema(root, func(s map[string]any) bool {
		err = l.visit(s, nil)
		return err == nil
	})
	return err
}

// mergingKeyword reports whether k names a keyword whose copies
// encoding/json merges (a schema, a list or map of them, a map).
func mergingKeyword(k []byte) bool {
	kw := keywordOf(string(k))
	return subschemaOne[kw] || subschemaList[kw] || subschemaMap[kw] || kw == "dependentRequired"
}

// decodeSchemaObject decodes schema, or returns nil when it is not a
// JSON object.
func decodeSchemaObject(schema []byte) map[string]any {
	d := json.NewDecoder(bytes.NewReader(schema))
	d.UseNumber()
	var doc any
	if d.Decode(&doc) != nil {
		return nil
	}
	root, _ := doc.(map[string]any)
	return root
}

// hasRefs reports whether a schema in root (nil: none) has a $ref or a
// $dynamicRef.
func hasRefs(root map[string]any) bool {
	if root == nil {
		return false
	}
	refs := false
	eachSchema(root, func(s map[string]any) bool {
		for k, v := range s {
			if kw := keywordOf(k); kw == "$ref" || kw == "$dynamicRef" {
				if r, _ := v.(string); r != "" {
					refs = true
				}
			}
		}
		return !refs
	})
	return refs
}

// walkPointer follows frag, a JSON Pointer ("" or "/a/0"), from root over
// the document as written.
func walkPointer(root map[string]any, frag string) (any, bool) {
	var cur any = root
	if frag == "" {
		return cur, true
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := cur.(type) {
		case map[string]any:
			cur = v[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			cur = v[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// sameMap reports whether a and b are the same map.
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// The keywords of jsonschema.Schema whose values are schemas, read from
// its struct so that a new version's keywords are followed: one schema,
// a list, or a map of them. "items" and "dependencies" are decoded by
// hand (a schema or a list; a schema or a list of names).
var (
	subschemaOne  = map[string]bool{"items": true}
	subschemaList = map[string]bool{"items": true}
	subschemaMap  = map[string]bool{"dependencies": true}
	// keywords maps foldName of every keyword to its spelling.
	keywords = map[string]string{}
)

func init() {
	t := reflect.TypeFor[jsonschema.Schema]()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		keywords[foldName([]byte(name))] = name
		switch f.Type {
		case reflect.TypeFor[*jsonschema.Schema]():
			subschemaOne[name] = true
		case reflect.TypeFor[[]*jsonschema.Schema]():
			subschemaList[name] = true
		case reflect.TypeFor[map[string]*jsonschema.Schema]():
			subschemaMap[name] = true
		}
	}
	for _, name := range []string{"items", "dependencies", "type"} {
		keywords[foldName([]byte(name))] = name
	}
}

// keywordOf returns the keyword k names as encoding/json matches it to a
// field of jsonschema.Schema (ignoring case, the Kelvin sign a k), or "".
func keywordOf(k string) string {
	return keywords[foldName([]byte(k))]
}

// eachSchema calls f with s and every schema in it that jsonschema-go
// decodes as one (not the values of enum, const, default or examples),
// until f returns false.
func eachSchema(s map[string]any, f func(map[string]any) bool) bool {
	if !f(s) {
		return false
	}
	return eachSubschema(s, func(_ string, sub map[string]any) bool {
		return eachSchema(sub, f)
	})
}

// eachSubschema calls f with each schema directly in s, and the keyword
// it is under, until f returns false.
func eachSubschema(s map[string]any, f func(kw string, sub map[string]any) bool) bool {
	for k, v := range s {
		kw := keywordOf(k)
		if m, ok := v.(map[string]any); ok {
			if subschemaOne[kw] && !f(kw, m) {
				return false
			}
			if subschemaMap[kw] {
				for _, x := range m {
					if xm, ok := x.(map[string]any); ok && !f(kw, xm) {
						return false
					}
				}
			}
		}
		if list, ok := v.([]any); ok && subschemaList[kw] {
			for _, x := range list {
				if xm, ok := x.(map[string]any); ok && !f(kw, xm) {
					return false
				}
			}
		}
	}
	return true
}

type loopFinder struct {
	root  map[string]any
	color map[unsafe.Pointer]int8
}

// visit is a depth-first search along the keywords that stay at the
// place (sameValue): 1 marks a schema on the path, 2 one done. Each
// schema is left done once, so the search is linear in the schema. via
// is the chain that led here, for the message.
func (l *loopFinder) visit(s map[string]any, via []string) error {
	id := reflect.ValueOf(s).UnsafePointer()
	switch l.color[id] {
	case 1:
		return fmt.Errorf("its references loop without entering the value (%s → a schema reached again): validating against it would never end", strings.Join(via, " → "))
	case 2:
		return nil
	}
	l.color[id] = 1
	err := sameValue(l.root, s, func(kw string, next map[string]any) error {
		return l.visit(next, append(via, kw))
	})
	l.color[id] = 2
	return err
}

// sameValue calls f with each schema that s applies to its own value
// (not to a member or element of it), and the keyword that leads there,
// until f returns an error. A reference that cannot be followed as
// jsonschema-go would is an error.
func sameValue(root, s map[string]any, f func(via string, next map[string]any) error) error {
	for k, x := range s {
		kw := keywordOf(k)
		switch kw {
		case "$ref", "$dynamicRef":
			ref, _ := x.(string)
			if ref == "" {
				continue
			}
			t, err := pointerTarget(root, ref)
			if err != nil {
				return fmt.Errorf("it has a %s the facade cannot follow: %w", kw, err)
			}
			if m, ok := t.(map[string]any); ok {
				if err := f(kw+" "+ref, m); err != nil {
					return err
				}
			}
		case "allOf", "anyOf", "oneOf":
			list, _ := x.([]any)
			for _, e := range list {
				if m, ok := e.(map[string]any); ok {
					if err := f(kw, m); err != nil {
						return err
					}
				}
			}
		case "not", "if", "then", "else":
			if m, ok := x.(map[string]any); ok {
				if err := f(kw, m); err != nil {
					return err
				}
			}
		case "dependentSchemas", "dependencies":
			deps, _ := x.(map[string]any)
			for _, e := range deps {
				if m, ok := e.(map[string]any); ok {
					if err := f(kw, m); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// pointerTarget returns the schema (an object or a boolean) that ref, a
// JSON Pointer in a fragment, names in root as written. Anything else
// (an anchor, a URI, a percent escape, which url.Parse decodes) is an
// error, as is a pointer that names no schema.
func pointerTarget(root map[string]any, ref string) (any, error) {
	frag, ok := strings.CutPrefix(ref, "#")
	switch {
	case !ok:
		return nil, fmt.Errorf("%q is not a fragment of this schema", ref)
	case strings.Contains(frag, "%"):
		return nil, fmt.Errorf("%q has a percent escape", ref)
	case frag != "" && frag[0] != '/':
		return nil, fmt.Errorf("%q names an anchor", ref)
	}
	cur, ok := walkPointer(root, frag)
	if !ok {
		return nil, fmt.Errorf("%q does not resolve", ref)
	}
	switch cur.(type) {
	case map[string]any, bool:
		return cur, nil
	}
	return nil, fmt.Errorf("%q does not name a schema", ref)
}
