package hostrules

import (
	"encoding/json"
	"strings"
	"testing"
)

func tool(name, schema string) Tool { return Tool{Name: name, InputSchema: json.RawMessage(schema)} }

const okSchema = `{"type":"object","properties":{"path":{"type":"string","description":"a path"},"n":{"type":"integer","minimum":0}},"required":["path"]}`

// Each host accepts a plain tool and names the problem of each tool that
// breaks one of its rules.
func TestHostsCatchTheirRules(t *testing.T) {
	for _, tc := range []struct {
		host   Host
		server string
		tool   Tool
		want   string // in the one problem reported; "" for none
	}{
		{ClaudeDesktop, "s", tool("win_exec", okSchema), ""},
		{ClaudeDesktop, "s", tool("win.exec", okSchema), "withheld"},
		{ClaudeDesktop, "s", tool(strings.Repeat("a", 65), okSchema), "outside"},
		{ClaudeDesktop, "s", tool("", okSchema), "outside"},
		{ClaudeDesktop, "s", tool("a", `{"type":"string"}`), "not \"object\""},
		{OpenAI, "s", tool("hdc_shell", okSchema), ""},
		{OpenAI, "s", tool("hdc.shell", okSchema), "outside"},
		{OpenAI, "s", tool("x", `{"type":"object","properties":{"a":{"type":"array"}}}`), "missing items"},
		{OpenAI, "s", tool("x", `{"type":"object","anyOf":[{"required":["a"]}]}`), "anyOf at the top level"},
		{OpenAIStrict, "s", tool("x", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`), ""},
		{OpenAIStrict, "s", tool("x", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`), "not in required"},
		{OpenAIStrict, "s", tool("x", `{"type":"object","properties":{},"required":[]}`), "additionalProperties must be false"},
		{Cursor, "winbridge", tool("hdc_list_targets", okSchema), ""},
		{Cursor, strings.Repeat("s", 30), tool(strings.Repeat("t", 31), okSchema), "over 60"},
		{GeminiAPI, "s", tool("path_wsl_to_win", okSchema), ""},
		{GeminiAPI, "s", tool("9tool", okSchema), "function name"},
		{GeminiAPI, "s", tool("x", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`), `unknown field "$schema"`},
		{GeminiAPI, "s", tool("x", `{"type":"object","additionalProperties":false}`), `unknown field "additionalProperties"`},
		{GeminiAPI, "s", tool("x", `{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}}}`), `unknown field "$ref"`},
		{GeminiAPI, "s", tool("x", `{"type":"object","properties":{"a":{"type":["string","null"]}}}`), "not one type name"},
		{GeminiAPI, "s", tool("x", `{"type":"object","properties":{"a":{"type":"integer","enum":[1]}}}`), "not a string"},
		{GeminiAPI, "s", tool("x", `{"type":"object","properties":{"a-b":{"type":"string"}}}`), "property name"},
		{GeminiAPI, "s", tool("x", `{"type":"object","properties":{"a":{"type":"array"}}}`), "items missing"},
		{GeminiAPI, "s", tool("x", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","const":"k"}}}}`), `unknown field "const"`},
		{GeminiCLI, "s", tool("x", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"properties":{"env":{"type":"object","additionalProperties":{"type":"string"}}}}`), ""},
		{GeminiCLI, "s", tool("x", `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"}]}}}`), `unknown field "oneOf"`},
		{GeminiCLI, "s", tool(strings.Repeat("a", 64), okSchema), "renames"},
	} {
		bad := tc.host.Check(tc.server, []Tool{tc.tool})
		switch {
		case tc.want == "" && len(bad) > 0:
			t.Errorf("%s refuses %q: %q", tc.host.Name, tc.tool.Name, bad)
		case tc.want != "" && (len(bad) != 1 || !strings.Contains(bad[0], tc.want)):
			t.Errorf("%s on %q %s: %q, want one problem with %q", tc.host.Name, tc.tool.Name, tc.tool.InputSchema, bad, tc.want)
		}
	}
}
