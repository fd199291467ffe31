package gateway_test

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/gateway"
	"github.com/winbridge/winbridge/mcp"
)

// notesServer is the upstream of the examples: an *mcp.Server in this
// process with a read-only tool, a tool whose name has a dot, and a
// destructive one. (Its logger is silenced: mcp warns about the dotted
// name, which is the gateway's to fix.)
func notesServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1.0.0"},
		&mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: mcp.Ptr(true), OpenWorldHint: mcp.Ptr(false)}
	type query struct {
		Query string `json:"query"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "search", Description: "Finds notes.", Annotations: readOnly},
		func(ctx context.Context, req *mcp.CallToolRequest, in query) (*mcp.CallToolResult, any, error) {
			text := fmt.Sprintf("2 notes match %q", in.Query)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	type id struct {
		ID int `json:"id"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "read.note", Description: "Reads a note.", Annotations: readOnly},
		func(ctx context.Context, req *mcp.CallToolRequest, in id) (*mcp.CallToolResult, any, error) {
			text := fmt.Sprintf("note %d", in.ID)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "delete", Description: "Deletes a note."},
		func(ctx context.Context, req *mcp.CallToolRequest, in id) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted"}}}, nil, nil
		})
	return srv
}

// A Gateway over an upstream server in this process. The model sees
// names that every host accepts ("read.note" has a dot, so its name takes
// a hash suffix) and descriptions that start with the tool's risk.
func ExampleNew() {
	ctx := context.Background()
	g, err := gateway.New(&gateway.Options{
		Servers: map[string]*mcp.Server{"notes": notesServer()},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	if err := g.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}

	// A client in memory; a host serves g.Server() on stdio (Run) or
	// HTTP (mcphttp) instead.
	c, err := client.ConnectServer(ctx, g.Server(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	tools, err := c.ListTools(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	for _, t := range tools {
		fmt.Printf("%-26s %s\n", t.Name, t.Description)
	}

	res, err := c.CallTool(ctx, "notes__search", map[string]any{"query": "go"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// notes__delete              [destructive] [open world] Deletes a note.
	// notes__read_note_3c9b3122  Reads a note.
	// notes__search              Finds notes.
	// 2 notes match "go"
}

// A policy denies a tool and caps the arguments of another. A refused call
// is a tool error whose structuredContent carries a stable code, so the
// host (or the model) can tell why without reading the message.
func ExampleNew_policy() {
	pol, err := gateway.ParsePolicy([]byte(`{
		"profiles": {"default": {"deny": ["notes/delete"]}},
		"tools": {"notes/search": {"maxArgumentBytes": 32}}
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	g, err := gateway.New(&gateway.Options{
		Servers: map[string]*mcp.Server{"notes": notesServer()},
		Policy:  pol,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	if err := g.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	c, err := client.ConnectServer(ctx, g.Server(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	for _, call := range []struct {
		name string
		args any
	}{
		{"notes__delete", map[string]any{"id": 7}},
		{"notes__search", map[string]any{"query": strings.Repeat("go ", 20)}},
		{"notes__search", map[string]any{"query": 42}},
		{"notes__search", map[string]any{"query": "go"}},
	} {
		res, err := c.CallTool(ctx, call.name, call.args)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(call.name, gateway.CodeOf(res))
	}
	// Output:
	// notes__delete denied
	// notes__search arguments_too_large
	// notes__search invalid_arguments
	// notes__search ok
}

// Policy errors name the JSON path of the value at fault.
func ExampleParsePolicy() {
	_, err := gateway.ParsePolicy([]byte(`{"tools": {"notes/delete": {"approval": "sometimes"}}}`))
	fmt.Println(err)
	// Output:
	// policy: tools["notes/delete"].approval: want one of ["always" "never"], got "sometimes"
}

// The plan is the surface as the model will see it: one entry per
// upstream tool, with its exposed name, risk, approval and status.
func ExampleGateway_Plan() {
	pol, err := gateway.ParsePolicy([]byte(`{"profiles": {"default": {"deny": ["notes/delete"]}}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	g, err := gateway.New(&gateway.Options{
		Servers: map[string]*mcp.Server{"notes": notesServer()},
		Policy:  pol,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	if err := g.Start(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range g.Plan() {
		fmt.Printf("%-26s %-10s %-22s approval=%-5v %s\n", e.Exposed, e.Tool, e.Risk, e.Approval, e.Status)
	}
	// Output:
	// notes__delete              delete     destructive+open-world approval=true  denied: denied by profile "default" (notes/delete)
	// notes__read_note_3c9b3122  read.note  read-only              approval=false listed
	// notes__search              search     read-only              approval=false listed
}
