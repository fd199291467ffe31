package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/winbridge/winbridge/mcp"
)

// A typed tool: the input schema comes from the Go type, arguments are
// validated before the handler runs, and the output becomes structured
// content with a text mirror.
func ExampleAddTool() {
	type weatherIn struct {
		City string `json:"city" jsonschema:"description=the city,minLength=1"`
	}
	type weatherOut struct {
		Celsius float64 `json:"celsius"`
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "weather", Description: "Current temperature."},
		func(ctx context.Context, req *mcp.CallToolRequest, in weatherIn) (*mcp.CallToolResult, weatherOut, error) {
			return nil, weatherOut{Celsius: 21.5}, nil
		})
	schema, _ := mcp.SchemaFor[weatherIn]()
	var s map[string]any
	json.Unmarshal(schema, &s)
	fmt.Println(s["type"], s["required"])
	// Output: object [city]
}
