package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/winbridge/winbridge/mcp"
)

// addInteractiveTools registers the tools that ask the client for
// something: tools-call-sampling, tools-call-elicitation,
// elicitation-sep1034-defaults and elicitation-sep1330-enums (legacy-era
// scenarios), plus a URL-mode elicitation. The same handlers serve
// 2026-07-28, where the question travels in an InputRequiredResult and the
// client retries (see mcp/input.go); an error from CreateMessage or Elicit
// is passed up unchanged so that this works.
func addInteractiveTools(srv *mcp.Server) {
	type samplingIn struct {
		Prompt string `json:"prompt" jsonschema_description:"The prompt to send to the LLM"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "test_sampling", Description: "Tests server-initiated sampling (LLM completion request)"},
		func(ctx context.Context, req *mcp.CallToolRequest, in samplingIn) (*mcp.CallToolResult, any, error) {
			res, err := req.CreateMessage(ctx, &mcp.CreateMessageParams{
				Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.TextContent{Text: in.Prompt}}}},
				MaxTokens: 100,
			})
			if err != nil {
				return nil, nil, err
			}
			return text("LLM response: " + sampledText(res)), nil, nil
		})

	type elicitIn struct {
		Message string `json:"message" jsonschema_description:"The message to show the user"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "test_elicitation", Description: "Tests server-initiated elicitation (user input request)"},
		func(ctx context.Context, req *mcp.CallToolRequest, in elicitIn) (*mcp.CallToolResult, any, error) {
			res, err := req.Elicit(ctx, &mcp.ElicitParams{
				Message: in.Message,
				RequestedSchema: &mcp.ElicitationSchema{
					Properties: map[string]*mcp.PrimitiveSchemaDefinition{
						"username": {Type: "string", Description: "User's response"},
						"email":    {Type: "string", Description: "User's email address"},
					},
					Required: []string{"username", "email"},
				},
			})
			if err != nil {
				return nil, nil, err
			}
			return text("User response: " + describeElicit(res)), nil, nil
		})

	// elicitation-sep1034-defaults: a default for every primitive type.
	mcp.AddTool(srv, &mcp.Tool{Name: "test_elicitation_sep1034_defaults", Description: "Tests elicitation with default values per SEP-1034"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			res, err := req.Elicit(ctx, &mcp.ElicitParams{
				Message:         "Please review and update the form fields with defaults",
				RequestedSchema: defaultsSchema(),
			})
			if err != nil {
				return nil, nil, err
			}
			return text("Elicitation completed: " + describeElicit(res)), nil, nil
		})

	// elicitation-sep1330-enums: the five enum variants.
	mcp.AddTool(srv, &mcp.Tool{Name: "test_elicitation_sep1330_enums", Description: "Tests elicitation with enum schema improvements per SEP-1330"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			res, err := req.Elicit(ctx, &mcp.ElicitParams{
				Message:         "Please select options from the enum fields",
				RequestedSchema: enumsSchema(),
			})
			if err != nil {
				return nil, nil, err
			}
			return text("Elicitation completed: " + describeElicit(res)), nil, nil
		})

	// URL-mode elicitation (2025-11-25): the client opens a URL instead of
	// showing a form. No scenario of the suite names this tool yet.
	mcp.AddTool(srv, &mcp.Tool{Name: "test_elicitation_url", Description: "Tests URL-mode elicitation: asks the client to open a URL"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			p := &mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: "Please complete the sign-in in your browser", URL: "https://example.com/conformance/authorize"}
			if !mcp.IsStateless(req.ProtocolVersion()) {
				p.ElicitationID = "conformance-url-elicitation"
			}
			res, err := req.Elicit(ctx, p)
			if err != nil {
				return nil, nil, err
			}
			return text("URL elicitation completed: action=" + res.Action), nil, nil
		})
}

// defaultsSchema is the form of SEP-1034: a default for string, integer,
// number, enum and boolean. test_client_elicitation_defaults of the client
// scenario asks with the same schema.
func defaultsSchema() *mcp.ElicitationSchema {
	return &mcp.ElicitationSchema{Properties: map[string]*mcp.PrimitiveSchemaDefinition{
		"name":     {Type: "string", Description: "User name", Default: "John Doe"},
		"age":      {Type: "integer", Description: "User age", Default: 30},
		"score":    {Type: "number", Description: "User score", Default: 95.5},
		"status":   {Type: "string", Description: "User status", Enum: []string{"active", "inactive", "pending"}, Default: "active"},
		"verified": {Type: "boolean", Description: "Verification status", Default: true},
	}}
}

// enumsSchema is the form of SEP-1330: untitled and titled single-select,
// the legacy enumNames form, untitled and titled multi-select.
func enumsSchema() *mcp.ElicitationSchema {
	return &mcp.ElicitationSchema{Properties: map[string]*mcp.PrimitiveSchemaDefinition{
		"untitledSingle": {Type: "string", Description: "Select one option", Enum: []string{"option1", "option2", "option3"}},
		"titledSingle": {Type: "string", Description: "Select one option with titles", OneOf: []mcp.EnumOption{
			{Const: "value1", Title: "First Option"}, {Const: "value2", Title: "Second Option"}, {Const: "value3", Title: "Third Option"},
		}},
		"legacyEnum": {Type: "string", Description: "Select one option (legacy)", Enum: []string{"opt1", "opt2", "opt3"},
			EnumNames: []string{"Option One", "Option Two", "Option Three"}},
		"untitledMulti": {Type: "array", Description: "Select multiple options", MinItems: mcp.Ptr[int64](1), MaxItems: mcp.Ptr[int64](3),
			Items: &mcp.EnumItems{Type: "string", Enum: []string{"option1", "option2", "option3"}}},
		"titledMulti": {Type: "array", Description: "Select multiple options with titles", MinItems: mcp.Ptr[int64](1), MaxItems: mcp.Ptr[int64](3),
			Items: &mcp.EnumItems{AnyOf: []mcp.EnumOption{
				{Const: "value1", Title: "First Choice"}, {Const: "value2", Title: "Second Choice"}, {Const: "value3", Title: "Third Choice"},
			}}},
	}}
}

// describeElicit renders an elicitation result as the reference fixture
// does: action=<action>, content=<json>.
func describeElicit(res *mcp.ElicitResult) string {
	content := res.Content
	if content == nil {
		content = map[string]any{}
	}
	b, _ := json.Marshal(content)
	return fmt.Sprintf("action=%s, content=%s", res.Action, b)
}

// sampledText is the text of a sampling result, or "No response".
func sampledText(res *mcp.CreateMessageResult) string {
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return t.Text
		}
	}
	return "No response"
}
