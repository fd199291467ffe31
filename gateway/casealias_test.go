package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// TestCaseAliasRefused: a schema that does not close its properties let
// {"MODE":"write"} through unchecked (jsonschema-go matches names
// exactly, and "MODE" is no declared property), and an upstream that
// decodes into a Go struct, as encoding/json does, matching names without
// case, ran with mode "write" past an enum of "read". A member whose name
// equals a declared property's only ignoring case (encoding/json's
// folding: the Kelvin sign is a k) is refused now; the flat fast path
// too.
func TestCaseAliasRefused(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "in", Version: "1"}, nil)
	ran := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct{ Mode, Keep string }
		_ = json.Unmarshal(req.Params.Arguments, &a)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran as " + a.Mode}}}, nil
	}
	s.AddTool(&mcp.Tool{Name: "flat", InputSchema: json.RawMessage(`{"type":"object","properties":{"mode":{"type":"string","enum":["read"]},"keep":{"type":"string"}}}`)}, ran)
	s.AddTool(&mcp.Tool{Name: "deep", InputSchema: json.RawMessage(`{"type":"object","properties":{"o":{"type":"object","properties":{"mode":{"enum":["read"]}}},"free":{"type":"object"}}}`)}, ran)
	f := start(t, &Options{Servers: map[string]*mcp.Server{"in": s}, Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	for _, c := range []struct {
		tool, args string
		want       Code
	}{
		{"in__flat", `{"mode":"read"}`, CodeOK},
		{"in__flat", `{"MODE":"write"}`, CodeInvalidArguments},
		{"in__flat", `{"Mode":"write"}`, CodeInvalidArguments},
		{"in__flat", `{"\u004dode":"write"}`, CodeInvalidArguments},
		{"in__flat", `{"\u212aeep":"x"}`, CodeInvalidArguments}, // KELVIN SIGN: k to encoding/json
		{"in__flat", `{"other":"x"}`, CodeOK},
		{"in__deep", `{"o":{"MODE":"write"}}`, CodeInvalidArguments},
		{"in__deep", `{"free":{"x":1,"y":[{"z":2}]}}`, CodeOK},
	} {
		res, code := f.call(t, c.tool, json.RawMessage(c.args))
		if code != c.want {
			t.Errorf("%s %s: %s %q, want %s", c.tool, c.args, code, res.TextOf(), c.want)
		}
		if code == CodeInvalidArguments && !strings.Contains(res.TextOf(), "only in case") {
			t.Errorf("%s %s: refused with %q, which does not say why", c.tool, c.args, res.TextOf())
		}
	}
}

// FuzzCaseAlias: alias, which reads the bytes once, finds a case alias
// exactly when a walk of the decoded arguments does.
func FuzzCaseAlias(f *testing.F) {
	for _, a := range []string{`{"MODE":"w"}`, `{"mode":"r"}`, `{"o":{"\u004dode":1}}`, `[{"\u212aeep":1}]`, `{"x":["mode",{"Keep":{}}]}`, `{"a":"{\"MODE\":1}"}`} {
		f.Add(a)
	}
	names := declaredNames([]byte(`{"properties":{"mode":{},"keep":{},"o":{"properties":{"Id":{}}}},"required":["ß"]}`))
	f.Fuzz(func(t *testing.T, args string) {
		if !json.Valid([]byte(args)) || dupIn([]byte(args)) != "" {
			return
		}
		var v any
		if json.Unmarshal([]byte(args), &v) != nil {
			return
		}
		want := false
		var walk func(any)
		walk = func(v any) {
			switch t := v.(type) {
			case map[string]any:
				for k, x := range t {
					if _, ok := names.folded[foldName([]byte(k))]; ok && !names.exact[k] {
						want = true
					}
					walk(x)
				}
			case []any:
				for _, x := range t {
					walk(x)
				}
			}
		}
		walk(v)
		if got, _ := names.alias([]byte(args)); (got != "") != want {
			t.Fatalf("%s: alias %q, the walk says %v", args, got, want)
		}
	})
}
