package gateway

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// jsonschema-go matches member names to "properties" exactly, but
// encoding/json fills a struct field from a member whose name equals the
// field's ignoring case. Against a schema that does not close its
// properties, {"MODE":"write"} is no declared property and passes
// unchecked, while an upstream that decodes into a struct runs with mode
// "write", past an enum of "read" on "mode". (Two members that differ
// only in case are refused as given twice: dupIn.) So a member whose name
// equals a property the schema declares, anywhere in it, only ignoring
// case, is refused: the facade checked it as another member than the one
// the upstream may read.

// propNames are the property names a schema declares: as written, and
// folded (foldName) to one as written.
type propNames struct {
	exact  map[string]bool
	folded map[string]string
}

// declaredNames returns the property names declared anywhere in schema
// (every "properties" object, keyword matched without case, and every
// "required" list), or nil when it declares none.
func declaredNames(schema []byte) *propNames {
	d := json.NewDecoder(bytes.NewReader(schema))
	d.UseNumber()
	var doc any
	if d.Decode(&doc) != nil {
		return nil
	}
	n := &propNames{exact: map[string]bool{}, folded: map[string]string{}}
	add := func(name string) {
		n.exact[name] = true
		n.folded[foldName([]byte(name))] = name
	}
	eachObject(doc, func(m map[string]any) bool {
		for k, v := range m {
			switch strings.ToLower(k) {
			case "properties":
				props, _ := v.(map[string]any)
				for name := range props {
					add(name)
				}
			case "required":
				list, _ := v.([]any)
				for _, x := range list {
					if name, ok := x.(string); ok {
						add(name)
					}
				}
			}
		}
		return true
	})
	if len(n.exact) == 0 {
		return nil
	}
	return n
}

// alias returns the first member name in v (valid JSON) that equals a
// declared name only ignoring case, and that name; "" when there is
// none. It reads v once, and allocates only for a name that is not
// declared as written.
func (n *propNames) alias(v []byte) (got, declared string) {
	if n == nil {
		return "", ""
	}
	var sbuf [16]bool
	stack := sbuf[:0] // true: an object
	wantName := false
	for i := 0; i < len(v); {
		switch v[i] {
		case '{':
			stack = append(stack, true)
			wantName = true
			i++
		case '[':
			stack = append(stack, false)
			i++
		case '}', ']':
			stack = stack[:len(stack)-1]
			i++
		case ',':
			wantName = len(stack) > 0 && stack[len(stack)-1]
			i++
		case '"':
			end := jsonscan.Skip(v, i)
			if wantName {
				wantName = false
				k := memberName(v, i, end)
				if !n.exact[string(k)] {
					if d, ok := n.folded[foldName(k)]; ok {
						return string(k), d
					}
				}
			}
			i = end
		default:
			i++
		}
	}
	return "", ""
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
