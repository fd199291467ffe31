package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"

	invopop "github.com/invopop/jsonschema"
)

// SchemaFor returns the JSON Schema (2020-12, inline, no $ref) that the
// server infers for T: the schema AddTool uses for a tool's input or output.
//
// A field's description is the whole text of its jsonschema_description
// tag, or of a jsonschema tag that does not begin with WORD= (the official
// Go SDK's form). In a jsonschema tag of invopop/jsonschema's keyword form
// (description=...,minimum=0), the description ends at the first comma:
// SchemaFor fails on a description cut that way, and on free text that
// invopop would read keywords from, naming the field.
func SchemaFor[T any]() (json.RawMessage, error) {
	return schemaForType(reflect.TypeFor[T]())
}

func schemaForType(t reflect.Type) (json.RawMessage, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if err := checkTags(t, map[reflect.Type]bool{}); err != nil {
		return nil, err
	}
	r := &invopop.Reflector{DoNotReference: true, ExpandedStruct: true, Anonymous: true, LookupComment: sdkDescription}
	s := r.ReflectFromType(t)
	hoistNullableDescriptions(s, 0)
	s.ID = ""
	s.Version = "https://json-schema.org/draft/2020-12/schema"
	if t.Kind() == reflect.Map || t.Kind() == reflect.Interface {
		// MCP needs an object schema even for "any arguments".
		s.Type = "object"
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return b, nil
}

func mustSchemaFor[T any](which, tool string) json.RawMessage {
	b, err := SchemaFor[T]()
	if err != nil {
		panic(fmt.Sprintf("mcp: AddTool %q: inferring the %s schema: %v", tool, which, err))
	}
	return b
}

// hoistNullableDescriptions copies the description of a nullable field
// (which invopop/jsonschema puts inside oneOf: [schema, {type: null}]) to
// the field's own schema, where hosts read it. depth bounds recursive
// types.
func hoistNullableDescriptions(s *invopop.Schema, depth int) {
	if s == nil || depth > 64 {
		return
	}
	if len(s.OneOf) == 2 && s.OneOf[1] != nil && s.OneOf[1].Type == "null" && s.OneOf[0] != nil && s.Description == "" {
		s.Description = s.OneOf[0].Description
	}
	for _, sub := range s.OneOf {
		hoistNullableDescriptions(sub, depth+1)
	}
	if s.Properties != nil {
		for sub := range s.Properties.ValuesFromOldest() {
			hoistNullableDescriptions(sub, depth+1)
		}
	}
	hoistNullableDescriptions(s.Items, depth+1)
	hoistNullableDescriptions(s.AdditionalProperties, depth+1)
}
