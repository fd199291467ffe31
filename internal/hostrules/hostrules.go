package hostrules

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"

	"github.com/winbridge/winbridge/mcp"
)

// Tool is what a host reads of a listed tool.
type Tool struct {
	Name        string
	Description string
	InputSchema json.RawMessage
}

// Host is one host's rules.
type Host struct {
	Name string
	// Check returns the problems the host would have with the tools of a
	// server configured under the name server; none means accepted.
	Check func(server string, tools []Tool) []string
}

// Hosts are the hosts a bridge's default tool list must pass.
func Hosts() []Host {
	return []Host{ClaudeDesktop, OpenAI, Cursor, GeminiCLI}
}

var portableName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// ClaudeDesktop: every tool name must match ^[a-zA-Z0-9_-]{1,64}$; one
// name that does not withholds the server's whole tool list
// ("FrontendRemoteMcpToolDefinition.name: String should match pattern").
// The input schema is a JSON Schema whose type is "object", as the
// Anthropic API requires of input_schema.
var ClaudeDesktop = Host{Name: "Claude Desktop", Check: func(_ string, tools []Tool) []string {
	var bad []string
	for _, t := range tools {
		if !portableName.MatchString(t.Name) {
			bad = append(bad, fmt.Sprintf("%q: name outside ^[a-zA-Z0-9_-]{1,64}$ (the whole list is withheld)", t.Name))
		}
		bad = append(bad, objectRoot(t)...)
	}
	return bad
}}

// OpenAI: function names are "a-z, A-Z, 0-9, or underscores and dashes,
// with a maximum length of 64" (the rule Codex applies to MCP tools);
// parameters are a JSON Schema object; an array schema needs items (the
// API answers "array schema missing items"). Hosts send MCP tools with
// strict mode off; OpenAIStrict holds the strict-mode rules.
var OpenAI = Host{Name: "OpenAI (function calling, Codex)", Check: func(_ string, tools []Tool) []string {
	var bad []string
	for _, t := range tools {
		if !portableName.MatchString(t.Name) {
			bad = append(bad, fmt.Sprintf("%q: name outside ^[a-zA-Z0-9_-]{1,64}$", t.Name))
		}
		bad = append(bad, objectRoot(t)...)
		s, _ := decode(t.InputSchema)
		walk(s, "", func(path string, s map[string]any) {
			if s["type"] == "array" && s["items"] == nil {
				bad = append(bad, fmt.Sprintf("%q: %s: array schema missing items", t.Name, path))
			}
		})
		for _, k := range []string{"anyOf", "oneOf", "allOf", "enum", "not"} {
			if _, ok := s[k]; ok {
				bad = append(bad, fmt.Sprintf("%q: %s at the top level of parameters", t.Name, k))
			}
		}
	}
	return bad
}}

// OpenAIStrict adds strict mode's rules (structured outputs): every object
// has additionalProperties false and lists all its properties in required.
var OpenAIStrict = Host{Name: "OpenAI strict mode", Check: func(server string, tools []Tool) []string {
	bad := OpenAI.Check(server, tools)
	for _, t := range tools {
		s, _ := decode(t.InputSchema)
		walk(s, "", func(path string, s map[string]any) {
			if s["type"] != "object" {
				return
			}
			if s["additionalProperties"] != false {
				bad = append(bad, fmt.Sprintf("%q: %s: additionalProperties must be false", t.Name, path))
			}
			props, _ := s["properties"].(map[string]any)
			req, _ := s["required"].([]any)
			for _, name := range sortedKeys(props) {
				if !slices.Contains(req, any(name)) {
					bad = append(bad, fmt.Sprintf("%q: %s: property %s not in required", t.Name, path, name))
				}
			}
		})
	}
	return bad
}}

// CursorMaxName is Cursor's limit on a server's name and its tool's name
// together.
const CursorMaxName = 60

// Cursor: the server's name and the tool's name together are at most 60
// characters; Cursor leaves longer tools out.
var Cursor = Host{Name: "Cursor", Check: func(server string, tools []Tool) []string {
	var bad []string
	for _, t := range tools {
		if n := len(server) + len(t.Name); n > CursorMaxName {
			bad = append(bad, fmt.Sprintf("%q: server and tool names together %d characters, over %d", t.Name, n, CursorMaxName))
		}
	}
	return bad
}}

// GeminiAPI: a function declaration's name starts with a letter or an
// underscore and holds a-z, A-Z, 0-9, '_', '.', ':' and '-', at most 64;
// its parameters field is the Schema object, "a select subset of an
// OpenAPI 3.0 schema object": the fields in geminiFields, type a single
// name, enum values strings, property names that start with a letter or
// an underscore and hold a-z, A-Z, 0-9 and '_' (at most 64), and items
// for every array.
var GeminiAPI = Host{Name: "Gemini API (parameters)", Check: func(_ string, tools []Tool) []string {
	var bad []string
	for _, t := range tools {
		bad = append(bad, geminiTool(t)...)
	}
	return bad
}}

// GeminiCLI: Gemini CLI removes $schema and additionalProperties from an
// MCP tool's schema, then sends it to the Gemini API; it rewrites a name
// with characters outside a-z, A-Z, 0-9, '_', '.', '-' or longer than 63,
// which would break a configuration naming the tool.
var GeminiCLI = Host{Name: "Gemini CLI", Check: func(_ string, tools []Tool) []string {
	var bad []string
	for _, t := range tools {
		if !geminiCLIName.MatchString(t.Name) {
			bad = append(bad, fmt.Sprintf("%q: Gemini CLI renames it (characters outside a-zA-Z0-9_.- or over 63)", t.Name))
		}
		s, err := decode(t.InputSchema)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%q: %v", t.Name, err))
			continue
		}
		walk(s, "", func(_ string, s map[string]any) {
			delete(s, "$schema")
			delete(s, "additionalProperties")
		})
		b, _ := json.Marshal(s)
		bad = append(bad, geminiTool(Tool{Name: t.Name, InputSchema: b})...)
	}
	return bad
}}

var (
	geminiName     = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`)
	geminiCLIName  = regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,63}$`)
	geminiProperty = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]{0,63}$`)
	geminiTypes    = []string{"string", "number", "integer", "boolean", "array", "object", "null"}
	geminiFields   = []string{"type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
		"properties", "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example",
		"anyOf", "propertyOrdering", "default", "items", "minimum", "maximum"}
)

func geminiTool(t Tool) []string {
	var bad []string
	if !geminiName.MatchString(t.Name) {
		bad = append(bad, fmt.Sprintf("%q: function name outside ^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$", t.Name))
	}
	s, err := decode(t.InputSchema)
	if err != nil {
		return append(bad, fmt.Sprintf("%q: %v", t.Name, err))
	}
	walk(s, "", func(path string, s map[string]any) {
		for _, k := range sortedKeys(s) {
			if !slices.Contains(geminiFields, k) {
				bad = append(bad, fmt.Sprintf("%q: %s: unknown field %q", t.Name, path, k))
			}
		}
		if typ, ok := s["type"]; ok {
			name, isString := typ.(string)
			if !isString || !slices.Contains(geminiTypes, name) {
				bad = append(bad, fmt.Sprintf("%q: %s: type %v is not one type name", t.Name, path, typ))
			}
		}
		if e, ok := s["enum"].([]any); ok {
			for _, v := range e {
				if _, ok := v.(string); !ok {
					bad = append(bad, fmt.Sprintf("%q: %s: enum value %v is not a string", t.Name, path, v))
				}
			}
		}
		if s["type"] == "array" && s["items"] == nil {
			bad = append(bad, fmt.Sprintf("%q: %s: items missing", t.Name, path))
		}
		props, _ := s["properties"].(map[string]any)
		for _, name := range sortedKeys(props) {
			if !geminiProperty.MatchString(name) {
				bad = append(bad, fmt.Sprintf("%q: %s: property name %q", t.Name, path, name))
			}
		}
	})
	return bad
}

// objectRoot checks that the input schema is a JSON object of type
// "object".
func objectRoot(t Tool) []string {
	s, err := decode(t.InputSchema)
	if err != nil {
		return []string{fmt.Sprintf("%q: %v", t.Name, err)}
	}
	if s["type"] != "object" {
		return []string{fmt.Sprintf("%q: input schema type %v, not \"object\"", t.Name, s["type"])}
	}
	return nil
}

func decode(raw json.RawMessage) (map[string]any, error) {
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("input schema is not a JSON object: %w", err)
	}
	return s, nil
}

// walk calls f on s and every schema nested in it (properties, items,
// additionalProperties, anyOf/oneOf/allOf members, $defs), with a path.
func walk(s map[string]any, path string, f func(path string, s map[string]any)) {
	if s == nil {
		return
	}
	if path == "" {
		path = "#"
	}
	f(path, s)
	for _, k := range []string{"properties", "$defs", "definitions", "patternProperties"} {
		m, _ := s[k].(map[string]any)
		for _, name := range sortedKeys(m) {
			sub, _ := m[name].(map[string]any)
			walk(sub, path+"/"+k+"/"+name, f)
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		if sub, ok := s[k].(map[string]any); ok {
			walk(sub, path+"/"+k, f)
		}
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		list, _ := s[k].([]any)
		for i, e := range list {
			sub, _ := e.(map[string]any)
			walk(sub, fmt.Sprintf("%s/%s/%d", path, k, i), f)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// FromMCP turns listed tools into what hosts read of them.
func FromMCP(tools []*mcp.Tool) []Tool {
	out := make([]Tool, len(tools))
	for i, t := range tools {
		out[i] = Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
	}
	return out
}
