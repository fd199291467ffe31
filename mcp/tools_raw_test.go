package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// TestAddToolRaw: the listed schema is not enforced (nor compiled: a
// schema jsonschema-go refuses registers), and the handler sees the
// arguments as sent.
func TestAddToolRaw(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "raw"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"$ref":"http://elsewhere/x"}`)
	var got json.RawMessage
	s.AddToolRaw(&mcp.Tool{Name: "t", InputSchema: schema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		got = req.Params.Arguments
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	a, b := transport.Pipe(nil)
	s.Connect(a)
	c, err := client.Connect(context.Background(), b, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tools, err := c.ListTools(context.Background())
	if err != nil || len(tools) != 1 || string(tools[0].InputSchema) != string(schema) {
		t.Fatalf("%v %v", err, tools)
	}
	res, err := c.CallTool(context.Background(), "t", json.RawMessage(`{"n":"5"}`))
	if err != nil || res.IsError || string(got) != `{"n":"5"}` {
		t.Fatalf("%v %+v %s", err, res, got)
	}
}

func TestUnknownToolHandler(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "raw"}, &mcp.ServerOptions{
		UnknownTool: func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no " + req.Params.Name}}}, nil
		},
	})
	a, b := transport.Pipe(nil)
	s.Connect(a)
	c, err := client.Connect(context.Background(), b, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(context.Background(), "nope", nil)
	if err != nil || !res.IsError || res.TextOf() != "no nope" {
		t.Fatalf("%v %+v", err, res)
	}
}
