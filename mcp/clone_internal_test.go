package mcp

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sharedRefs reports the maps, pointers and slices that a and b, values of
// one type, share: a deep copy shares none.
func sharedRefs(a, b reflect.Value, path string, out *[]string) {
	switch a.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice:
		if a.IsNil() || b.IsNil() {
			return
		}
		if a.UnsafePointer() == b.UnsafePointer() && !(a.Kind() == reflect.Pointer && a.Type().Elem().Size() == 0) {
			*out = append(*out, path)
		}
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !a.IsNil() && !b.IsNil() {
			sharedRefs(a.Elem(), b.Elem(), path, out)
		}
	case reflect.Struct:
		for i := range a.NumField() {
			sharedRefs(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name, out)
		}
	case reflect.Slice:
		for i := range min(a.Len(), b.Len()) {
			sharedRefs(a.Index(i), b.Index(i), path+"[]", out)
		}
	case reflect.Map:
		for _, k := range a.MapKeys() {
			if bv := b.MapIndex(k); bv.IsValid() {
				sharedRefs(a.MapIndex(k), bv, path+"["+k.String()+"]", out)
			}
		}
	}
}

// The typed client info and capabilities a request hands its handler are
// deep copies of the decoding other requests share, whatever they hold.
func TestClientViewsAreDeepCopies(t *testing.T) {
	for _, c := range []struct {
		v     any
		clone func(any) any
		text  string
	}{
		{new(ClientCapabilities), func(v any) any { c := v.(*ClientCapabilities).clone(); return &c },
			`{"roots":{"listChanged":true},"sampling":{"context":{"a":{"b":[1]}},"tools":{"x":{}}},"elicitation":{"form":{},"url":{}},
			"experimental":{"e":{"k":{"n":1}}},"extensions":{"x":{"k":[{}]}},"tasks":{"list":{}}}`},
		{new(Implementation), func(v any) any { c := v.(*Implementation).clone(); return &c },
			`{"name":"n","version":"1","icons":[{"src":"s","sizes":["16x16"]}]}`},
	} {
		if err := json.Unmarshal([]byte(c.text), c.v); err != nil {
			t.Fatal(err)
		}
		cp := c.clone(c.v)
		if diff := cmp.Diff(c.v, cp); diff != "" {
			t.Fatalf("the copy differs (-orig +copy):\n%s", diff)
		}
		var shared []string
		sharedRefs(reflect.ValueOf(c.v).Elem(), reflect.ValueOf(cp).Elem(), reflect.TypeOf(c.v).Elem().Name(), &shared)
		if len(shared) > 0 {
			t.Errorf("shared with the original: %v", shared)
		}
	}
}
