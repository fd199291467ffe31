package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/winbridge/winbridge/mcp"
)

// addPrompts registers the prompts of prompts-list, prompts-get-simple,
// prompts-get-with-args, prompts-get-embedded-resource and
// prompts-get-with-image (test_input_required_result_prompt is in mrtr.go).
func addPrompts(srv *mcp.Server) {
	srv.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Title: "Simple Test Prompt", Description: "A simple prompt without arguments"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "This is a simple prompt for testing."}},
			}}, nil
		})

	srv.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_arguments", Title: "Prompt With Arguments", Description: "A prompt with required arguments",
		Arguments: []*mcp.PromptArgument{
			{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true},
		}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])}},
			}}, nil
		})

	srv.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_embedded_resource", Title: "Prompt With Embedded Resource", Description: "A prompt that includes an embedded resource",
		Arguments: []*mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
					URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: mcp.Ptr("Embedded resource content for testing."),
				}}},
				{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Please process the embedded resource above."}},
			}}, nil
		})

	srv.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Title: "Prompt With Image", Description: "A prompt that includes image content"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: &mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"}},
				{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Please analyze the image above."}},
			}}, nil
		})
}

// suggestions are the completion candidates of each prompt argument and
// template variable.
var suggestions = map[string][]string{
	"test_prompt_with_arguments/arg1":                {"paris", "park", "party", "test-value-1", "testing"},
	"test_prompt_with_arguments/arg2":                {"berlin", "bern", "test-value-2"},
	"test_prompt_with_embedded_resource/resourceUri": {"test://static-text", "test://static-binary", "test://watched-resource"},
	"test://template/{id}/data/id":                   {"1", "2", "3", "123"},
}

// complete answers completion/complete (completion-complete): the
// candidates of the argument that start with what the user typed.
func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var target string
	switch ref := req.Params.Ref.(type) {
	case *mcp.PromptReference:
		target = ref.Name
	case *mcp.ResourceTemplateReference:
		target = ref.URI
	}
	var values []string
	for _, v := range suggestions[target+"/"+req.Params.Argument.Name] {
		if strings.HasPrefix(v, req.Params.Argument.Value) {
			values = append(values, v)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.Completion{Values: values, Total: mcp.Ptr(int64(len(values))), HasMore: mcp.Ptr(false)}}, nil
}
