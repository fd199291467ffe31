package mcp

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// encoding/json matches an object's member to a struct field ignoring
// case when no field has its exact name, and the last of the members that
// match a field wins. A JSON Schema validator matches names exactly. So
// with a schema that does not forbid other members, {"path":"safe.txt",
// "PATH":"../secret"} passed validation for "path" and ran with
// "../secret": the handler got a value its schema never saw.
//
// checkFoldedNames closes that gap for typed tools whose schema the tool
// gave (an inferred schema forbids unknown members at every struct, so the
// validator already refuses such a member): a member whose name matches a
// field of the struct it decodes into only ignoring case is refused, at
// every depth, so that what runs is what was validated.

// foldedName is a member that encoding/json would decode into a field
// whose name it matches only ignoring case.
type foldedName struct{ member, field string }

func (e *foldedName) Error() string {
	return fmt.Sprintf("member %q would set field %q, whose name it matches only ignoring case; names are case-sensitive", e.member, e.field)
}

// checkFoldedNames walks v, valid JSON to be decoded into a value of type
// t, and returns the first member that matches a struct field only
// ignoring case, or nil.
func checkFoldedNames(v []byte, t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if len(v) == 0 || customDecoding(t) {
		return nil // the type decodes itself, by its own rules
	}
	var err error
	switch t.Kind() {
	case reflect.Struct:
		if v[0] != '{' {
			return nil
		}
		fields := jsonFields(t)
		_ = jsonscan.MembersBytes(v, func(k, m []byte) bool {
			if ft, ok := fields[string(k)]; ok {
				err = checkFoldedNames(m, ft)
				return err == nil
			}
			for name := range fields {
				if strings.EqualFold(name, string(k)) {
					err = &foldedName{member: string(k), field: name}
					return false
				}
			}
			return true
		})
	case reflect.Map:
		if v[0] != '{' {
			return nil
		}
		_ = jsonscan.MembersBytes(v, func(_, m []byte) bool {
			err = checkFoldedNames(m, t.Elem())
			return err == nil
		})
	case reflect.Slice, reflect.Array:
		if v[0] != '[' {
			return nil
		}
		_ = jsonscan.Elements(v, func(e []byte) bool {
			err = checkFoldedNames(e, t.Elem())
			return err == nil
		})
	}
	return err
}

var jsonFieldsCache sync.Map // reflect.Type -> map[string]reflect.Type

// jsonFields returns the JSON names of t's fields and their types, the
// fields of embedded structs included. It may name more fields than
// encoding/json decodes (one an outer field hides, say): a member that
// matches one of those only ignoring case is refused too, which errs on
// the safe side.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if f, ok := jsonFieldsCache.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	fields := map[string]reflect.Type{}
	addJSONFields(t, fields, 0)
	f, _ := jsonFieldsCache.LoadOrStore(t, fields)
	return f.(map[string]reflect.Type)
}

func addJSONFields(t reflect.Type, fields map[string]reflect.Type, depth int) {
	if depth > 16 {
		return // a cycle of embedded pointers: encoding/json stops too
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if !validTagName(name) {
			name = ""
		}
		if sf.Anonymous && name == "" {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				addJSONFields(et, fields, depth+1)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if _, ok := fields[name]; !ok {
			fields[name] = sf.Type
		}
	}
}
