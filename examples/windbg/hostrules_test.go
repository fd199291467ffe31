package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/hostrules"
	"github.com/winbridge/winbridge/internal/schematest"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// listEvalTool lists the tool as a client sees it; no session opens.
func listEvalTool(t *testing.T, dotted bool) []*mcp.Tool {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "windbg", Version: "1"}, nil)
	addEvalTool(srv, NewSession(Config{Dump: `C:\dumps\app.dmp`}, slog.New(slog.DiscardHandler)), dotted)
	a, b := transport.Pipe(nil)
	srv.Connect(b)
	c, err := client.Connect(context.Background(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

// The tool as listed by default passes every major host's rules, and its
// field description is the source's, whole. -dotted-names gives the name
// Claude Desktop refuses.
func TestEvalToolPassesEveryHost(t *testing.T) {
	tools := listEvalTool(t, false)
	if len(tools) != 1 || tools[0].Name != "windbg_eval" {
		t.Fatalf("tools %+v", tools)
	}
	for _, h := range append(hostrules.Hosts(), hostrules.GeminiAPI) {
		if bad := h.Check("windbg", hostrules.FromMCP(tools)); len(bad) > 0 {
			t.Errorf("%s:\n%s", h.Name, strings.Join(bad, "\n"))
		}
	}
	src, err := schematest.SourceTags(".")
	if err != nil {
		t.Fatal(err)
	}
	if bad := schematest.AgainstSource(tools, src); len(bad) > 0 {
		t.Error(strings.Join(bad, "\n"))
	}
	dotted := listEvalTool(t, true)
	if len(dotted) != 1 || dotted[0].Name != "windbg.eval" || len(hostrules.ClaudeDesktop.Check("windbg", hostrules.FromMCP(dotted))) != 1 {
		t.Errorf("dotted: %+v", dotted)
	}
}
