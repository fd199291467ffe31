package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unsafe"
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

// refLoop returns the chain of a loop of schemas in schema that stay at
// one place in the value, or "". jsonschema-go matches keywords without
// case, as encoding/json does, and so does refLoop.
func refLoop(schema []byte) string {
	d := json.NewDecoder(bytes.NewReader(schema))
	d.UseNumber()
	var doc any
	if d.Decode(&doc) != nil {
		return "" // the compiler says what is wrong
	}
	root, _ := doc.(map[string]any)
	if root == nil {
		return ""
	}
	l := &loopFinder{c: &cleaner{root: root}, color: map[unsafe.Pointer]int8{}}
	var loop string
	eachObject(doc, func(m map[string]any) bool {
		loop = l.visit(m)
		return loop == ""
	})
	return loop
}

// eachObject calls f with every object in v, until f returns false.
func eachObject(v any, f func(map[string]any) bool) bool {
	switch t := v.(type) {
	case map[string]any:
		if !f(t) {
			return false
		}
		for _, x := range t {
			if !eachObject(x, f) {
				return false
			}
		}
	case []any:
		for _, x := range t {
			if !eachObject(x, f) {
				return false
			}
		}
	}
	return true
}

type loopFinder struct {
	c     *cleaner // for its resolve
	color map[unsafe.Pointer]int8
}

// visit is a depth-first search along the keywords that stay at the
// place (sameValue): 1 marks a schema on the path, 2 one done. Each
// schema is left done once, so the search is linear in the schema.
func (l *loopFinder) visit(s map[string]any) string {
	id := reflect.ValueOf(s).UnsafePointer()
	switch l.color[id] {
	case 1:
		return "a schema reached again"
	case 2:
		return ""
	}
	l.color[id] = 1
	var loop string
	sameValue(l.c, s, func(via string, next map[string]any) bool {
		if loop = l.visit(next); loop != "" {
			loop = via + " → " + loop
		}
		return loop == ""
	})
	l.color[id] = 2
	return loop
}

// sameValue calls f with each schema that s applies to its own value
// (not to a member or element of it), and the keyword that leads there,
// until f returns false.
func sameValue(c *cleaner, s map[string]any, f func(via string, next map[string]any) bool) {
	for k, x := range s {
		switch strings.ToLower(k) {
		case "$ref", "$dynamicref":
			ref, _ := x.(string)
			if t, err := c.resolve(ref); err == nil && len(t) > 0 {
				if !f(k+" "+ref, t) {
					return
				}
			}
		case "allof", "anyof", "oneof":
			list, _ := x.([]any)
			for _, e := range list {
				if m, ok := e.(map[string]any); ok && !f(k, m) {
					return
				}
			}
		case "not", "if", "then", "else":
			if m, ok := x.(map[string]any); ok && !f(k, m) {
				return
			}
		case "dependentschemas", "dependencies":
			deps, _ := x.(map[string]any)
			for _, e := range deps {
				if m, ok := e.(map[string]any); ok && !f(k, m) {
					return
				}
			}
		}
	}
}

// errRefLoop is why a schema with a loop is not compiled.
func errRefLoop(loop string) error {
	return fmt.Errorf("its references loop without entering the value (%s): validating against it would never end", loop)
}
