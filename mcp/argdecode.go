package mcp

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// argDecoder decodes tool arguments into a typed tool's input struct
// without json.Unmarshal, which scans the whole arguments once to check
// them and again to decode them: two passes over a text of megabytes, of
// the slowest kind (encoding/json's scanner goes byte by byte). The
// arguments are already checked (decodeCallToolParams), so one walk over
// them decodes them, strings as encoding/json decodes them.
//
// It follows encoding/json's rules for a struct with plain fields, and
// gives up where they get involved: it is built only for structs without
// embedded fields, ",string" options, field names that collide (exactly or
// ignoring case) or custom unmarshalers of their own, and it gives up on a
// member whose name matches a field only ignoring case, a member given
// twice, and any value that does not fit its field. The caller then
// decodes the arguments with json.Unmarshal, which writes the error. Field
// values other than strings, numbers and booleans are decoded by
// json.Unmarshal on their own, which decodes them as it would in place.
type argDecoder struct {
	names  []string // JSON names of the fields
	fields []argField
}

type argField struct {
	index int          // in the struct
	kind  reflect.Kind // of a scalar decoded here; Invalid: decoded by json.Unmarshal
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonNumberType      = reflect.TypeFor[json.Number]()
)

// customDecoding reports whether encoding/json decodes t with a method of
// t's own.
func customDecoding(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(jsonUnmarshalerType) || p.Implements(textUnmarshalerType)
}

// newArgDecoder returns the decoder for t, or nil if t is not a struct
// that an argDecoder handles.
func newArgDecoder(t reflect.Type) *argDecoder {
	if t.Kind() != reflect.Struct || customDecoding(t) {
		return nil
	}
	d := &argDecoder{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil
		}
		if !sf.IsExported() {
			continue // encoding/json ignores it
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(opts, "string") {
			return nil
		}
		if !validTagName(name) {
			name = sf.Name
		}
		for _, n := range d.names {
			if strings.EqualFold(n, name) {
				return nil // encoding/json picks one by rules not repeated here
			}
		}
		f := argField{index: i}
		switch k := sf.Type.Kind(); k {
		case reflect.String, reflect.Bool,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
			reflect.Float32, reflect.Float64:
			if !customDecoding(sf.Type) && sf.Type != jsonNumberType {
				f.kind = k
			}
		}
		d.names = append(d.names, name)
		d.fields = append(d.fields, f)
	}
	if len(d.names) > 32 {
		return nil // fastObject tracks duplicates in 32 bits
	}
	return d
}

// validTagName is encoding/json's isValidTag: a name it takes from a tag.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// decode decodes args, valid JSON, into dst, a zero struct of the
// decoder's type, reporting false if the caller must decode them with
// json.Unmarshal instead (into a zero value again: dst may be half done).
func (d *argDecoder) decode(args []byte, dst reflect.Value) bool {
	var buf [8][]byte
	var vals [][]byte
	if len(d.names) <= len(buf) {
		vals = buf[:len(d.names)]
	} else {
		vals = make([][]byte, len(d.names))
	}
	if len(args) == 0 || args[0] != '{' || !fastObject(args, d.names, vals) {
		return false
	}
	for i, f := range d.fields {
		v := vals[i]
		if v == nil || f.kind != reflect.Invalid && string(v) == "null" {
			continue // as encoding/json leaves a scalar alone for null
		}
		fv := dst.Field(f.index)
		if !decodeScalar(fv, f.kind, v) {
			return false
		}
	}
	return true
}

// decodeScalar decodes v into fv as encoding/json's literalStore does for
// a field of kind k, or, for kind Invalid, with json.Unmarshal.
func decodeScalar(fv reflect.Value, k reflect.Kind, v []byte) bool {
	switch k {
	case reflect.Invalid:
		return json.Unmarshal(v, fv.Addr().Interface()) == nil
	case reflect.String:
		if v[0] != '"' {
			return false
		}
		s, ok := jsonscan.Unquote(v)
		fv.SetString(s)
		return ok
	case reflect.Bool:
		switch string(v) {
		case "true":
			fv.SetBool(true)
		case "false":
			fv.SetBool(false)
		default:
			return false
		}
		return true
	}
	if c := v[0]; c != '-' && (c < '0' || c > '9') {
		return false // not a number
	}
	switch k {
	case reflect.Float32, reflect.Float64:
		n, err := strconv.ParseFloat(string(v), fv.Type().Bits())
		if err != nil || fv.OverflowFloat(n) {
			return false
		}
		fv.SetFloat(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := strconv.ParseUint(string(v), 10, 64)
		if err != nil || fv.OverflowUint(n) {
			return false
		}
		fv.SetUint(n)
	default:
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil || fv.OverflowInt(n) {
			return false
		}
		fv.SetInt(n)
	}
	return true
}
