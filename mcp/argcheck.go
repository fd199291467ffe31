package mcp

import (
	"bytes"
	"math"
	"reflect"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// argCheck is a fast path for validating tool arguments, on their raw
// JSON. jsonschema-go validates decoded values only, so validating took a
// decode of the arguments into a map besides the decode into the handler's
// type: for a text of megabytes, two more passes over it and a copy.
//
// An argCheck handles the keywords of the schemas that tools infer from Go
// types (type, properties, required, additionalProperties, items, and
// annotations that constrain nothing) and only ever says yes: arguments it
// accepts, jsonschema-go accepts too. Anything else, including everything
// it would reject, goes to jsonschema-go, which has the last word and
// writes the error. So validation gives the same verdicts and errors with
// or without it.
type argCheck struct {
	types      jsonTypes            // allowed types; 0 means any
	props      map[string]*argCheck // "properties"
	required   []string
	additional *argCheck // "additionalProperties" as a schema; nil: any value
	closed     bool      // "additionalProperties": false
	items      *argCheck // nil: any value
}

// jsonTypes is a set of JSON Schema types.
type jsonTypes uint8

const (
	typeNull jsonTypes = 1 << iota
	typeBoolean
	typeObject
	typeArray
	typeNumber
	typeInteger
	typeString
)

var typeNames = map[string]jsonTypes{
	"null": typeNull, "boolean": typeBoolean, "object": typeObject, "array": typeArray,
	"number": typeNumber, "integer": typeInteger, "string": typeString,
}

// anyValue checks nothing but what every value must pass: that it decodes
// as jsonschema-go's input did (a number must fit a float64).
var anyValue = &argCheck{}

// argCheckFields are the fields of jsonschema.Schema an argCheck handles or
// that do not take part in validation. A schema that sets any other field
// is left to jsonschema-go; so is one that sets a field added to the
// library later.
var argCheckFields = map[string]bool{
	"Schema": true, "Type": true, "Types": true, "Properties": true, "Required": true,
	"AdditionalProperties": true, "Items": true,
	"Title": true, "Description": true, "Default": true, "Deprecated": true, "ReadOnly": true,
	"WriteOnly": true, "Examples": true, "Comment": true, "Format": true, "Extra": true,
	"PropertyOrder": true,
}

// compileArgCheck returns the fast path for schema s, or nil if s needs
// more than an argCheck does.
func compileArgCheck(s *jsonschema.Schema) *argCheck {
	switch s.Schema {
	case "", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#",
		"https://json-schema.org/draft/2020-12/schema":
	default:
		return nil // jsonschema-go refuses to validate with it
	}
	c, ok := compileSub(s, true)
	if !ok {
		return nil
	}
	return c
}

func compileSub(s *jsonschema.Schema, root bool) (*argCheck, bool) {
	if s == nil {
		return nil, false
	}
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		if name := v.Type().Field(i).Name; !argCheckFields[name] && !v.Field(i).IsZero() {
			return nil, false
		}
	}
	if !root && s.Schema != "" {
		return nil, false
	}
	c := &argCheck{required: s.Required}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	for _, t := range types {
		bit, ok := typeNames[t]
		if !ok {
			return nil, false
		}
		c.types |= bit
	}
	if len(s.Properties) > 0 {
		c.props = make(map[string]*argCheck, len(s.Properties))
		for name, sub := range s.Properties {
			pc, ok := compileSub(sub, false)
			if !ok {
				return nil, false
			}
			c.props[name] = pc
		}
	}
	if a := s.AdditionalProperties; a != nil {
		// jsonschema-go's own test for "false": a "not" of the empty schema.
		if a.Not != nil && reflect.ValueOf(*a.Not).IsZero() {
			c.closed = true
		} else {
			ac, ok := compileSub(a, false)
			if !ok {
				return nil, false
			}
			c.additional = ac
		}
	}
	if s.Items != nil {
		ic, ok := compileSub(s.Items, false)
		if !ok {
			return nil, false
		}
		c.items = ic
	}
	return c, true
}

// accepts reports whether jsonschema-go certainly accepts args, the raw
// arguments of a call (absent or null: an empty object). args must be
// valid JSON.
func (c *argCheck) accepts(args []byte) bool {
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	return c.value(args)
}

// value checks one value, valid JSON without surrounding white space.
func (c *argCheck) value(v []byte) bool {
	if c.free() && (v[0] == '{' || v[0] == '[') {
		return numbersFit(v)
	}
	var t jsonTypes
	switch v[0] {
	case '"':
		t = typeString
	case '{':
		t = typeObject
	case '[':
		t = typeArray
	case 't', 'f':
		t = typeBoolean
	case 'n':
		t = typeNull
	default:
		// As encoding/json decodes a number into an interface value, and
		// as jsonschema-go tells an integer.
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return false
		}
		t = typeNumber
		if _, frac := math.Modf(f); frac == 0 {
			t = typeInteger
		}
	}
	if c.types != 0 && c.types&t == 0 && !(t == typeInteger && c.types&typeNumber != 0) {
		return false
	}
	switch t {
	case typeObject:
		return c.object(v)
	case typeArray:
		items := c.items
		if items == nil {
			items = anyValue
		}
		ok := true
		if jsonscan.Elements(v, func(e []byte) bool {
			ok = items.value(e)
			return ok
		}) != nil {
			return false
		}
		return ok
	}
	return true
}

// free reports whether c constrains nothing, as anyValue.
func (c *argCheck) free() bool {
	return c.types == 0 && c.props == nil && c.required == nil && c.additional == nil && !c.closed && c.items == nil
}

// numbersFit is anyValue.value for an object or array: whether every
// number in v fits a float64. It reads v once, where going down member by
// member (object, Elements) read each byte once for every level above it:
// arguments of 4 MiB nested 10000 deep, under a schema that says no more
// than "type": "object", took minutes of CPU per call. Duplicate names,
// which object leaves to jsonschema-go, do not matter where any value
// passes.
func numbersFit(v []byte) bool {
	for i := 0; i < len(v); {
		switch c := v[i]; {
		case c == '"':
			i = jsonscan.Skip(v, i)
		case c == '-' || '0' <= c && c <= '9':
			end := jsonscan.Skip(v, i)
			if !anyValue.value(v[i:end]) {
				return false
			}
			i = end
		default:
			i++
		}
	}
	return true
}

func (c *argCheck) object(v []byte) bool {
	// The names seen, to find duplicates (of which a decoded map keeps the
	// last: left to jsonschema-go) and the required members. Arguments have
	// few members; a linear search beats a map.
	var buf [8][]byte
	seen := buf[:0]
	ok := true
	err := jsonscan.MembersBytes(v, func(k, m []byte) bool {
		for _, s := range seen {
			if bytes.Equal(s, k) {
				ok = false
				return false
			}
		}
		seen = append(seen, k)
		sub, known := c.props[string(k)]
		switch {
		case known:
		case c.closed:
			ok = false
			return false
		case c.additional != nil:
			sub = c.additional
		default:
			sub = anyValue
		}
		ok = sub.value(m)
		return ok
	})
	if err != nil || !ok {
		return false
	}
	for _, r := range c.required {
		found := false
		for _, s := range seen {
			found = found || string(s) == r
		}
		if !found {
			return false
		}
	}
	return true
}
