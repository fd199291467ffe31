package mcp

import (
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// Descriptions of struct fields come from tags, in one of three forms:
//
//   - jsonschema_description:"text": the whole text, commas and all. The
//     form to use.
//   - jsonschema:"text" where text does not begin with WORD=: the form of
//     the official Go SDK; the whole text is the description.
//   - jsonschema:"description=text,minimum=0": invopop/jsonschema's
//     keyword list, which ends the description at the first comma. A
//     description cut that way is refused: AddTool panics, naming the
//     field, instead of sending the model half a sentence.
//
// Keywords other than the description (minimum=0, enum=a, required...)
// stay in a jsonschema tag of the keyword-list form.

// isKeyword reports whether s begins with a keyword of invopop's list
// form, WORD=value: a letter or '_', then letters, digits or '_', then
// '='. (By hand rather than a regexp compiled at init: every server
// pays a package's init at start-up.)
func isKeyword(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '=':
			return i > 0
		case c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return false
}

// knownKeywords are the WORD= keywords invopop/jsonschema reads (for one
// type or another); it ignores any other silently, so a typo or free text
// that begins with WORD= would vanish.
var knownKeywords = map[string]bool{
	"title": true, "description": true, "type": true, "anchor": true,
	"oneof_required": true, "anyof_required": true, "oneof_ref": true, "oneof_type": true, "anyof_ref": true, "anyof_type": true,
	"minLength": true, "maxLength": true, "pattern": true, "format": true, "readOnly": true, "writeOnly": true,
	"default": true, "example": true, "enum": true,
	"multipleOf": true, "minimum": true, "maximum": true, "exclusiveMaximum": true, "exclusiveMinimum": true,
	"minItems": true, "maxItems": true, "uniqueItems": true,
}

// bareKeyword reports whether s is a keyword invopop reads without a value.
func bareKeyword(s string) bool { return s == "required" || s == "nullable" || s == "-" }

// fieldDescription returns the description the tags of f give, and whether
// it must be supplied apart from invopop (the Go SDK form, which invopop
// does not read). It fails on tags invopop would misread: a description
// cut at a comma, or free text that invopop would take for keywords.
func fieldDescription(f reflect.StructField) (desc string, sdkForm bool, err error) {
	desc, sdkForm, err = tagDescription(f)
	if err == nil && !utf8.ValidString(desc) {
		return "", false, fmt.Errorf("the description %q is not valid UTF-8, which JSON cannot carry unchanged", desc)
	}
	return desc, sdkForm, err
}

func tagDescription(f reflect.StructField) (desc string, sdkForm bool, err error) {
	tag, hasTag := f.Tag.Lookup("jsonschema")
	full, hasFull := f.Tag.Lookup("jsonschema_description")
	if !hasTag || tag == "" {
		return full, false, nil
	}
	plain := strings.Split(tag, ",") // how invopop finds required, nullable and "-"
	list := isKeyword(tag) || bareKeyword(plain[0])
	if !list {
		// The Go SDK form: the whole tag is the description.
		if hasFull {
			return "", false, fmt.Errorf("both a jsonschema_description tag and a description in the jsonschema tag")
		}
		for _, seg := range plain {
			if bareKeyword(seg) || isKeyword(seg) {
				return "", false, fmt.Errorf("the jsonschema tag %q reads as a description, but invopop/jsonschema would take %q in it for a keyword: put the text in a jsonschema_description tag", tag, seg)
			}
		}
		return tag, true, nil
	}
	segs := splitUnescaped(tag)
	for _, seg := range plain {
		if bareKeyword(seg) && !contains(segs, seg) {
			return "", false, fmt.Errorf("the jsonschema tag %q: the escaped comma before %q makes it a keyword: put the description in a jsonschema_description tag", tag, seg)
		}
	}
	for i, seg := range segs {
		if key, _, _ := strings.Cut(seg, "="); isKeyword(seg) && !knownKeywords[key] {
			return "", false, fmt.Errorf("the jsonschema tag %q: invopop/jsonschema knows no keyword %q and would drop it silently", tag, key)
		}
		if bareKeyword(seg) || isKeyword(seg) {
			if d, ok := strings.CutPrefix(seg, "description="); ok {
				if hasFull {
					return "", false, fmt.Errorf("two descriptions: a jsonschema_description tag, or another description=, and description= in the jsonschema tag")
				}
				full, hasFull = d, true
			}
			continue
		}
		if i > 0 && strings.HasPrefix(segs[i-1], "description=") {
			return "", false, fmt.Errorf("the description in the jsonschema tag %q is cut at a comma (invopop/jsonschema reads %q as the whole of it): put the text in a jsonschema_description tag", tag, strings.TrimPrefix(segs[i-1], "description="))
		}
		return "", false, fmt.Errorf("the jsonschema tag %q: %q is not a keyword (WORD=value, required or nullable)", tag, seg)
	}
	return full, false, nil
}

// splitUnescaped splits s at the commas not preceded by a backslash,
// removing the backslashes, as invopop/jsonschema does.
func splitUnescaped(s string) []string {
	var out []string
	cur := ""
	for i, part := range strings.Split(s, ",") {
		if i > 0 && strings.HasSuffix(cur, `\`) {
			cur = strings.TrimSuffix(cur, `\`) + "," + part
			continue
		}
		if i > 0 {
			out = append(out, cur)
		}
		cur = part
	}
	return append(out, cur)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// checkTags checks the description tags of every field reachable from t.
func checkTags(t reflect.Type, seen map[reflect.Type]bool) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if seen[t] {
		return nil
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return checkTags(t.Elem(), seen)
	case reflect.Struct:
	default:
		return nil
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		if _, _, err := fieldDescription(f); err != nil {
			return fmt.Errorf("field %s.%s: %w", t.Name(), f.Name, err)
		}
		if err := checkTags(f.Type, seen); err != nil {
			return err
		}
	}
	return nil
}

// sdkDescription is the Reflector's LookupComment: it supplies the
// descriptions of the Go SDK form, which invopop does not read. It is
// consulted only for fields without a description of invopop's own.
func sdkDescription(t reflect.Type, field string) string {
	if field == "" {
		return ""
	}
	f, ok := t.FieldByName(field)
	if !ok {
		return ""
	}
	if d, sdk, err := fieldDescription(f); err == nil && sdk {
		return d
	}
	return ""
}
