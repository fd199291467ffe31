package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// TestHugeSchemaNotCompiled: a tool's schemas were compiled (decoded
// several times, resolved, cleaned) on every rebuild before the listed
// size was held against limits.maxSchemaBytes: 2.9 MB of enum cost half
// a second, per profile, and an upstream flooding list_changed has four
// rebuilds a second. Schemas of more than four times the cap as sent are
// withheld before anything reads them.
func TestHugeSchemaNotCompiled(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "h", Version: "1"}, nil)
	huge := `{"type":"object","properties":{"x":{"enum":["` + strings.Repeat("v", 300<<10) + `"]}}}`
	ran := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
	}
	s.AddTool(&mcp.Tool{Name: "huge", InputSchema: json.RawMessage(huge)}, ran)
	f := start(t, &Options{Servers: map[string]*mcp.Server{"h": s}, Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	found := false
	for _, pe := range f.g.Plan() {
		if pe.Tool == "huge" {
			found = true
			if !strings.Contains(pe.Status, "withheld") || !strings.Contains(pe.Status, "before they are compiled") {
				t.Errorf("plan: %q", pe.Status)
			}
		}
	}
	if !found {
		t.Fatal("the tool is not in the plan")
	}
	if res, code := f.call(t, "h__huge", json.RawMessage(`{}`)); code != CodeDenied {
		t.Errorf("%s %q, want denied", code, res.TextOf())
	}
}
