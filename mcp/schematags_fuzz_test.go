package mcp_test

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/winbridge/winbridge/internal/schematest"
	"github.com/winbridge/winbridge/mcp"
)

// FuzzSchemaDescriptionTags: whatever the tags of a field, the schema
// either carries the description a reader of the source means, whole, or
// is refused; a tag's text never makes the field required.
func FuzzSchemaDescriptionTags(f *testing.F) {
	for _, seed := range [][2]string{
		{"description=must be true (install, uninstall)", ""},
		{"description=a,minimum=1", ""},
		{"minimum=1,description=a\\,b", ""},
		{"description=a\\,required", ""},
		{"free text, required", ""},
		{"free text, with commas, e.g. a=1", ""},
		{"minimum=0", "whole, text"},
		{"description=one", "two"},
		{"description=a,description=b", ""},
		{"required", "x"},
		{"-", ""},
		{"nullable", ""},
		{"description=x=y", ""},
		{"title=t,description=d", ""},
		{"", "only, here"},
	} {
		f.Add(seed[0], seed[1], false)
	}
	f.Fuzz(func(t *testing.T, tag, full string, hasFull bool) {
		st := `json:"x,omitempty" jsonschema:` + strconv.Quote(tag)
		if hasFull {
			st += ` jsonschema_description:` + strconv.Quote(full)
		}
		field := reflect.StructField{Name: "X", Type: reflect.TypeFor[string](), Tag: reflect.StructTag(st)}
		if field.Tag.Get("jsonschema") != tag || hasFull && field.Tag.Get("jsonschema_description") != full {
			return // not representable as a tag
		}
		typ := reflect.StructOf([]reflect.StructField{field})
		raw, err := mcp.SchemaForType(typ)
		if err != nil {
			return
		}
		var s struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("schema %s: %v", raw, err)
		}
		p, listed := s.Properties["x"]
		if !listed {
			if tag == "-" || len(tag) > 1 && tag[:2] == "-," {
				return // the field is left out, as asked
			}
			t.Fatalf("tag %q: x is not in %s", st, raw)
		}
		if want := schematest.SourceDescription(field); p.Description != want {
			t.Fatalf("tag %q: description %q, the source means %q", st, p.Description, want)
		}
		if len(s.Required) > 0 && !explicitRequired(tag) {
			t.Fatalf("tag %q: x required by %s", st, raw)
		}
	})
}

// explicitRequired reports whether tag is invopop's keyword form with a
// required keyword: the one way a tag makes an omitempty field required.
func explicitRequired(tag string) bool {
	for _, seg := range splitPlain(tag) {
		if seg == "required" {
			return true
		}
	}
	return false
}

func splitPlain(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
