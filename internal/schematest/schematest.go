package schematest

import (
	"github.com/winbridge/winbridge/mcp"

	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
)

// SourceDescription is the description a reader of the source means for
// f: the jsonschema_description tag; else, in a jsonschema tag, the text
// after description= up to the next ",WORD=" keyword or the end; else the
// whole jsonschema tag when it is free text (the Go SDK form).
//
// It is written apart from package mcp's parser on purpose: a test that
// used that parser would agree with any cut it makes.
func SourceDescription(f reflect.StructField) string {
	if d, ok := f.Tag.Lookup("jsonschema_description"); ok {
		return d
	}
	tag := f.Tag.Get("jsonschema")
	if rest, ok := strings.CutPrefix(tag, "description="); ok {
		return untilKeyword(rest)
	}
	if i := strings.Index(tag, ",description="); i >= 0 {
		return untilKeyword(tag[i+len(",description="):])
	}
	first, _, _ := strings.Cut(tag, ",")
	if tag == "" || keyword.MatchString(tag) || first == "required" || first == "nullable" || first == "-" {
		return ""
	}
	return tag
}

var (
	keyword     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	nextKeyword = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*=|required$|required,|nullable$|nullable,)`)
)

// untilKeyword is s up to its first comma that is not escaped and starts
// a keyword, with escaped commas unescaped.
func untilKeyword(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == ',':
			b.WriteByte(',')
			i++
		case s[i] == ',' && nextKeyword.MatchString(s[i+1:]):
			return b.String()
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// Descriptions reports every field of typ, recursively, whose description
// in schema (a JSON Schema as listed) differs from SourceDescription, and
// every field the schema lacks.
func Descriptions(typ reflect.Type, schema json.RawMessage) []string {
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return []string{fmt.Sprintf("schema: %v", err)}
	}
	var bad []string
	walk(typ, s, typ.String(), map[reflect.Type]bool{}, &bad)
	return bad
}

func walk(t reflect.Type, s map[string]any, path string, seen map[reflect.Type]bool, bad *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil {
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		items, _ := s["items"].(map[string]any)
		walk(t.Elem(), items, path+"[]", seen, bad)
		return
	case reflect.Map:
		items, _ := s["additionalProperties"].(map[string]any)
		walk(t.Elem(), items, path+"{}", seen, bad)
		return
	case reflect.Struct:
	default:
		return
	}
	if seen[t] {
		return
	}
	seen[t] = true
	defer delete(seen, t)
	props, _ := s["properties"].(map[string]any)
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if f.Anonymous && name == "" {
			walk(f.Type, s, path, seen, bad)
			continue
		}
		if name == "" {
			name = f.Name
		}
		p, ok := props[name].(map[string]any)
		if !ok {
			*bad = append(*bad, fmt.Sprintf("%s.%s: no property %q in the schema", path, f.Name, name))
			continue
		}
		got, _ := p["description"].(string)
		if want := SourceDescription(f); got != want {
			*bad = append(*bad, fmt.Sprintf("%s.%s: description %q, the source says %q", path, f.Name, got, want))
		}
		walk(f.Type, p, path+"."+name, seen, bad)
	}
}

// Tool reports what is wrong with the descriptions of tool as listed: the
// fields of its input type in and output type out (nil when the schema is
// not inferred from a type) must carry their source descriptions whole,
// and the tool's own description must be a whole text: not empty, with
// its brackets and quotes closed, ending a sentence.
func Tool(tool *mcp.Tool, in, out reflect.Type) []string {
	var bad []string
	if d := tool.Description; d == "" {
		bad = append(bad, "no description")
	} else if !wholeText(d) {
		bad = append(bad, fmt.Sprintf("description %q looks cut", d))
	}
	if in != nil {
		bad = append(bad, Descriptions(in, tool.InputSchema)...)
	}
	if out != nil {
		bad = append(bad, Descriptions(out, tool.OutputSchema)...)
	}
	for i := range bad {
		bad[i] = tool.Name + ": " + bad[i]
	}
	return bad
}

// wholeText reports whether s closes what it opens and ends a sentence.
func wholeText(s string) bool {
	depth := 0
	for _, r := range s {
		switch r {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
	}
	return depth == 0 && strings.Count(s, `"`)%2 == 0 && strings.HasSuffix(strings.TrimSpace(s), ".")
}
