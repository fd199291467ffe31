package mcp

import (
	"encoding/json"
	"reflect"
)

// jsonEqual reports whether a and b, values as decoded from JSON into an
// any (maps, slices, strings, json.Number, float64, booleans, nil), are
// equal, as reflect.DeepEqual would say, without its reflection: it
// compares a stateless client's _meta on every request, and DeepEqual
// allocated on each map entry. Other types go to reflect.DeepEqual.
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) || (a == nil) != (b == nil) {
			return false
		}
		for k, va := range a {
			vb, ok := b[k]
			if !ok || !jsonEqual(va, vb) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) || (a == nil) != (b == nil) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	case string:
		b, ok := b.(string)
		return ok && a == b
	case json.Number:
		b, ok := b.(json.Number)
		return ok && a == b
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	}
	return reflect.DeepEqual(a, b)
}
