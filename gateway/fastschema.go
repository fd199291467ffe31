package gateway

import (
	"encoding/json"
	"math"
	"slices"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// flatSchema is an input schema of the shape most tools declare — an
// object of properties with a primitive type each, some required, maybe
// closed — checked without jsonschema-go, whose general validator costs a
// couple of dozen allocations per call. It only ever says "valid": when
// it does not, the full validator runs and gives the verdict and the
// message. FuzzFlatSchema checks that it never accepts what the full
// validator refuses.
type flatSchema struct {
	props    map[string]flatType
	required []string
	closed   bool // additionalProperties: false
}

type flatType uint8

const (
	flatAny flatType = iota // no "type": any value
	flatString
	flatNumber
	flatInteger
	flatBoolean
)

// compileFlat returns the flat form of raw, or nil when raw uses anything
// beyond it (the full validator then runs alone).
func compileFlat(raw json.RawMessage) *flatSchema {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m["type"] != "object" {
		return nil
	}
	fs := &flatSchema{props: map[string]flatType{}}
	for k, v := range m {
		switch k {
		case "type", "description", "title":
		case "$schema":
			switch v {
			case "https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#":
			default:
				return nil // another draft may mean other rules
			}
		case "additionalProperties":
			b, ok := v.(bool)
			if !ok {
				return nil
			}
			fs.closed = !b
		case "required":
			list, ok := v.([]any)
			if !ok {
				return nil
			}
			for _, r := range list {
				s, ok := r.(string)
				if !ok {
					return nil
				}
				fs.required = append(fs.required, s)
			}
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			for name, p := range props {
				t, ok := flatProperty(p)
				if !ok {
					return nil
				}
				fs.props[name] = t
			}
		default:
			return nil
		}
	}
	slices.Sort(fs.required)
	fs.required = slices.Compact(fs.required)
	return fs
}

func flatProperty(p any) (flatType, bool) {
	m, ok := p.(map[string]any)
	if !ok {
		return 0, false
	}
	t := flatAny
	for k, v := range m {
		switch k {
		case "description", "title":
			if _, ok := v.(string); !ok {
				return 0, false
			}
		case "type":
			switch v {
			case "string":
				t = flatString
			case "number":
				t = flatNumber
			case "integer":
				t = flatInteger
			case "boolean":
				t = flatBoolean
			default:
				return 0, false
			}
		default:
			return 0, false
		}
	}
	return t, true
}

// valid reports whether args (as encoding/json or decodeArgs decodes them) surely
// satisfy the schema; false means "ask the full validator".
func (fs *flatSchema) valid(args map[string]any) bool {
	for _, r := range fs.required {
		if _, ok := args[r]; !ok {
			return false
		}
	}
	for k, v := range args {
		t, ok := fs.props[k]
		if !ok {
			if fs.closed {
				return false
			}
			continue
		}
		switch t {
		case flatString:
			_, ok = v.(string)
		case flatBoolean:
			_, ok = v.(bool)
		case flatNumber:
			switch v.(type) {
			case float64, int64, uint64:
			default:
				ok = false
			}
		case flatInteger:
			switch n := v.(type) {
			case int64, uint64:
			case float64:
				ok = !math.IsInf(n, 0) && n == math.Trunc(n)
			default:
				ok = false
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// validRaw is valid on the encoded arguments, for a call that needs no
// decoding otherwise (no path arguments, no nulls to strip): it reads the
// bytes in place. The arguments must be valid JSON (the transport checked
// them). Anything it cannot judge exactly — a number it would have to
// parse, more than 64 required members — it leaves to the full path.
func (fs *flatSchema) validRaw(raw []byte) bool {
	if len(fs.required) > 64 {
		return false
	}
	var have uint64
	ok := true
	err := jsonscan.MembersBytes(raw, func(k, v []byte) bool {
		t, known := fs.props[string(k)]
		if !known {
			ok = !fs.closed
			return ok
		}
		if i, found := slices.BinarySearch(fs.required, string(k)); found {
			have |= 1 << i
		}
		switch t {
		case flatString:
			ok = v[0] == '"'
		case flatBoolean:
			ok = v[0] == 't' || v[0] == 'f'
		case flatNumber, flatInteger:
			ok = plainInteger(v)
		}
		return ok
	})
	return err == nil && ok && have == 1<<len(fs.required)-1
}

// plainInteger reports whether v is an integer of at most 15 digits
// written without fraction or exponent: one every decoder reads exactly.
// Other numbers go the full way.
func plainInteger(v []byte) bool {
	if len(v) > 0 && v[0] == '-' {
		v = v[1:]
	}
	if len(v) == 0 || len(v) > 15 {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
