package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"

	invopop "github.com/invopop/jsonschema"
)

// SchemaFor returns the JSON Schema (2020-12, inline, no $ref) that the
// server infers for T: the schema AddTool uses for a tool's input or output.
func SchemaFor[T any]() (json.RawMessage, error) {
	t := reflect.TypeFor[T]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	r := &invopop.Reflector{DoNotReference: true, ExpandedStruct: true, Anonymous: true}
	s := r.ReflectFromType(t)
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
